import { Inject, Injectable, Logger } from '@nestjs/common';
import { join } from 'node:path';
import { ApiKeysService } from '../api-keys/api-keys.service';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { DataModelService } from '../data-model/data-model.service';
import { DatasourcesService } from '../data-model/datasources.service';
import { ensureSqliteAppFolder } from '../datasources/datasource-urls';
import { AppsService } from '../platform/apps.service';
import { VersionsService } from '../platform/versions.service';
import { TableApisService } from '../table-apis/table-apis.service';
import { EnumsService } from '../enums/enums.service';
import { DEMO_ORDER_STATUSES, writeDemoDataset } from './demo-dataset';

/** Working-version slot the seeding edits through before publishing it as main. */
const SEED_SLOT = 'system:demo-seed';
const ALL = { select: true, insert: true, update: true, delete: true };

/**
 * The demo app (CONTRACT.md §9): on an empty store, an app `demo` over an embedded SQLite sales
 * dataset with an `OrderStatus` enum on `orders.status`, a published Table API per table with every action, and one API key scoped to it.
 * Built through the same services the builder REST uses.
 */
@Injectable()
export class DemoService {
  private readonly logger = new Logger('Demo');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly apps: AppsService,
    private readonly datasources: DatasourcesService,
    private readonly model: DataModelService,
    private readonly apis: TableApisService,
    private readonly versions: VersionsService,
    private readonly keys: ApiKeysService,
    private readonly enums: EnumsService,
  ) {}

  /** Seeds the demo when no app exists. @returns the address and the key (to print once), or null. */
  async seedIfEmpty(): Promise<{ address: string; key: string } | null> {
    if ((await this.apps.list()).length > 0) return null;
    const app = await this.apps.create('Demo store', 'demo');
    // The demo's file lives in the demo app's own folder, like any app's SQLite datasource.
    const folder = ensureSqliteAppFolder(this.config.sqliteDatasourceDir, app.id);
    writeDemoDataset(join(folder, 'demo.db'));
    const ds = await this.datasources.create(app.id, {
      name: 'demo-sqlite',
      type: 'sqlite',
      url: 'sqlite:demo.db',
    });
    await this.model.import(app.id, SEED_SLOT, ds.id, [
      'customers',
      'products',
      'orders',
      'order_lines',
    ]);
    await this.enums.create(app.id, SEED_SLOT, {
      name: 'OrderStatus',
      description: 'Where an order stands',
      values: DEMO_ORDER_STATUSES.map((value) => ({
        value,
        label: value.charAt(0) + value.slice(1).toLowerCase(),
      })),
    });
    await this.model.updateField(app.id, SEED_SLOT, 'orders', 'status', { enum: 'OrderStatus' });
    const apis = [
      {
        name: 'customers',
        table: 'customers',
        fields: {
          id: true,
          name: true,
          email: true,
          city: true,
          created_at: true,
          orders: { id: true, status: true, ordered_at: true, total: true },
        },
      },
      { name: 'products', table: 'products', fields: null },
      {
        name: 'orders',
        table: 'orders',
        fields: {
          id: true,
          status: true,
          ordered_at: true,
          total: true,
          customer_id: true,
          customer: { id: true, name: true, city: true },
          order_lines: {
            id: true,
            quantity: true,
            unit_price: true,
            product: { id: true, name: true, price: true },
          },
        },
      },
      {
        name: 'orderLines',
        table: 'order_lines',
        fields: {
          id: true,
          order_id: true,
          product_id: true,
          quantity: true,
          unit_price: true,
          product: { name: true },
        },
      },
    ];
    for (const spec of apis) {
      const api = await this.apis.create(app.id, SEED_SLOT, {
        ...spec,
        actions: ALL,
        fields: spec.fields as never,
      });
      await this.apis.publish(app.id, SEED_SLOT, api.id);
    }
    await this.versions.publish(app.id, SEED_SLOT);
    const key = await this.keys.create({
      name: 'demo',
      scope: [{ appId: app.id, endpoints: 'all' }],
    });
    this.logger.log('Created the demo app "demo" and its API key');
    return { address: app.address, key: key.key };
  }
}
