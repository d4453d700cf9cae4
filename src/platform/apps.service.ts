import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { EventsService } from '../events/events.service';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, Repository } from 'typeorm';
import { notFound } from '../common/domain-error';
import { AppVersionEntity } from './entities/app-version.entity';
import { AppEntity } from './entities/app.entity';
import { PlatformErrors } from './platform.errors';
import { emptyDefinition } from './version-definition';

/** An app as routes return it (CONTRACT.md §3). */
export interface AppView {
  id: string;
  name: string;
  address: string;
  domain: string | null;
}

const view = (a: AppEntity): AppView => ({
  id: a.id,
  name: a.name,
  address: a.address,
  domain: a.domain,
});

/** Apps: create (with an empty main version), list, rename, set the domain, find by address. */
@Injectable()
export class AppsService {
  /**
   * Endpoint lookups by address or domain (`a:<address>`, `d:<domain>`), found apps only,
   * bounded (1,000 entries, 5 s each); dropped by `AppChanged` and used only while
   * `EventsService.cachesAreSafe()`.
   */
  private readonly lookups = new LRUCache<string, AppView>({ max: 1_000, ttl: 5_000 });

  constructor(
    @InjectRepository(AppEntity) private readonly apps: Repository<AppEntity>,
    @InjectDataSource() private readonly db: DataSource,
    private readonly events: EventsService,
  ) {
    events.on('AppChanged', () => this.lookups.clear());
    events.on('CachesReset', () => this.lookups.clear());
  }

  /** Creates an app and its main version. @throws DomainError CONFLICT when the address is taken. */
  async create(name: string, address: string): Promise<AppView> {
    if (await this.apps.existsBy({ address })) throw PlatformErrors.addressTaken(address);
    const now = new Date().toISOString();
    const app = this.apps.create({ id: randomUUID(), name, address, domain: null, createdAt: now });
    await this.db.transaction(async (tx) => {
      await tx.insert(AppEntity, app);
      await tx.insert(AppVersionEntity, {
        id: randomUUID(),
        appId: app.id,
        slot: 'main',
        revision: 1,
        definition: JSON.stringify(emptyDefinition()),
        updatedAt: now,
      });
    });
    return view(app);
  }

  /** Every app, oldest first. */
  async list(): Promise<AppView[]> {
    return (await this.apps.find({ order: { createdAt: 'ASC' } })).map(view);
  }

  /** The app with this id. @throws DomainError NOT_FOUND. */
  async get(id: string): Promise<AppView> {
    const app = await this.apps.findOneBy({ id });
    if (!app) throw notFound('App', id);
    return view(app);
  }

  /** Renames the app or sets/clears its domain. @throws DomainError NOT_FOUND, CONFLICT. */
  async update(id: string, change: { name?: string; domain?: string | null }): Promise<AppView> {
    const app = await this.apps.findOneBy({ id });
    if (!app) throw notFound('App', id);
    if (change.domain) {
      const owner = await this.apps.findOneBy({ domain: change.domain });
      if (owner && owner.id !== id) throw PlatformErrors.domainTaken(change.domain);
    }
    if (change.name !== undefined) app.name = change.name;
    if (change.domain !== undefined) app.domain = change.domain;
    await this.apps.save(app);
    this.events.appChanged({ appId: id });
    return view(app);
  }

  /** The app at this address or domain (the GraphQL endpoint's step 1), or null. */
  async findByAddressOrDomain(by: { address?: string; domain?: string }): Promise<AppView | null> {
    const key = by.address ? `a:${by.address}` : by.domain ? `d:${by.domain.toLowerCase()}` : null;
    if (!key) return null;
    const safe = this.events.cachesAreSafe();
    const cached = safe ? this.lookups.get(key) : undefined;
    if (cached) return cached;
    const app = by.address
      ? await this.apps.findOneBy({ address: by.address })
      : await this.apps.findOneBy({ domain: by.domain!.toLowerCase() });
    if (!app) return null;
    const found = view(app);
    if (safe) this.lookups.set(key, found);
    return found;
  }
}
