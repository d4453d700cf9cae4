import { Global, Module } from '@nestjs/common';
import { EventsService } from './events.service';

/** Typed change events (`ModelChanged`, `ApiKeyRevoked`). */
@Global()
@Module({ providers: [EventsService], exports: [EventsService] })
export class EventsModule {}
