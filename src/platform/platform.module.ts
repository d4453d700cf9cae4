import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { JwtModule } from '@nestjs/jwt';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { AccountsController } from './accounts.controller';
import { AccountsService } from './accounts.service';
import { AppsController } from './apps.controller';
import { AppsService } from './apps.service';
import { AuthController } from './auth.controller';
import { AccountEntity } from './entities/account.entity';
import { AppVersionEntity } from './entities/app-version.entity';
import { AppEntity } from './entities/app.entity';
import { PlatformAuthGuard } from './platform-auth.guard';
import { SecretBoxService } from './secret-box.service';
import { SessionsService } from './sessions.service';
import { VersionsService } from './versions.service';
import { LoginThrottleService } from './login-throttle.service';

/** Accounts, platform sessions, apps and versions. Registers the global REST guard. */
@Module({
  imports: [
    TypeOrmModule.forFeature([AccountEntity, AppEntity, AppVersionEntity]),
    JwtModule.registerAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        secret: config.platformSecret,
        signOptions: { algorithm: 'HS256' },
      }),
    }),
  ],
  controllers: [AuthController, AccountsController, AppsController],
  providers: [
    AccountsService,
    SessionsService,
    AppsService,
    VersionsService,
    SecretBoxService,
    LoginThrottleService,
    { provide: APP_GUARD, useClass: PlatformAuthGuard },
  ],
  exports: [
    AccountsService,
    SessionsService,
    AppsService,
    VersionsService,
    SecretBoxService,
    LoginThrottleService,
  ],
})
export class PlatformModule {}
