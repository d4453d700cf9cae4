import { Module } from '@nestjs/common';
import { PlatformModule } from '../platform/platform.module';
import { EnumsController } from './enums.controller';
import { EnumsService } from './enums.service';

/** App enums. */
@Module({
  imports: [PlatformModule],
  controllers: [EnumsController],
  providers: [EnumsService],
  exports: [EnumsService],
})
export class EnumsModule {}
