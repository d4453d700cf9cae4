import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { PlatformModule } from '../platform/platform.module';
import { AppAccessController } from './app-access.controller';
import { AppUsersService } from './app-users.service';
import { AppUserEntity } from './entities/app-user.entity';
import { PermissionsService } from './permissions.service';

/** App users, app-user sessions and row rules per role (CONTRACT.md §4). */
@Module({
  imports: [
    PlatformModule,
    TypeOrmModule.forFeature([AppUserEntity]),
    JwtModule.registerAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        secret: config.platformSecret,
        signOptions: { algorithm: 'HS256' },
      }),
    }),
  ],
  controllers: [AppAccessController],
  providers: [AppUsersService, PermissionsService],
  exports: [AppUsersService],
})
export class AppAccessModule {}
