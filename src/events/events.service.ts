import { Injectable } from '@nestjs/common';
import { EventEmitter } from 'node:events';

/** A version's definitions changed: schema cache entries of older revisions are stale. */
export interface ModelChanged {
  appId: string;
  versionId: string;
  revision: number;
}

/** An API key was revoked: callers using it must be refused from the next request. */
export interface ApiKeyRevoked {
  keyId: string;
}

interface EventMap {
  ModelChanged: [ModelChanged];
  ApiKeyRevoked: [ApiKeyRevoked];
}

/**
 * Typed change events, in process. Correctness never depends on them (the schema cache is keyed
 * by revision and key state is read from the metadata store); they let caches drop stale entries
 * early. The Redis pub/sub bridge that carries them across instances plugs in here.
 */
@Injectable()
export class EventsService {
  private readonly bus = new EventEmitter<EventMap>();

  /** Publishes {@link ModelChanged}. */
  modelChanged(event: ModelChanged): void {
    this.bus.emit('ModelChanged', event);
  }

  /** Publishes {@link ApiKeyRevoked}. */
  apiKeyRevoked(event: ApiKeyRevoked): void {
    this.bus.emit('ApiKeyRevoked', event);
  }

  /** Subscribes to one event type; returns the unsubscribe function. */
  on<K extends keyof EventMap>(type: K, listener: (...args: EventMap[K]) => void): () => void {
    this.bus.on(type, listener as never);
    return () => this.bus.off(type, listener as never);
  }
}
