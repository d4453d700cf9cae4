import { InitialSchema1763683200000 } from './1763683200000-initial-schema';
import { DatasourceServerVersion1763769600000 } from './1763769600000-datasource-server-version';
import { AppUsers1764115200000 } from './1764115200000-app-users';
import { AccountLifecycle1766102400000 } from './1766102400000-account-lifecycle';
import { KeyCostBudgets1795651200000 } from './1795651200000-key-cost-budgets';
import { ApiKeyMcpDeletes1795737600000 } from './1795737600000-api-key-mcp-deletes';
import { Webhooks1795824000000 } from './1795824000000-webhooks';
import { DatasourceTimeZone1795910400000 } from './1795910400000-datasource-time-zone';
import { DatasourceReadOnlyLogin1795996800000 } from './1795996800000-datasource-read-only-login';

/** Every metadata migration, oldest first; run at start on SQLite and PostgreSQL alike. */
export const METADATA_MIGRATIONS = [
  InitialSchema1763683200000,
  DatasourceServerVersion1763769600000,
  AppUsers1764115200000,
  AccountLifecycle1766102400000,
  KeyCostBudgets1795651200000,
  ApiKeyMcpDeletes1795737600000,
  Webhooks1795824000000,
  DatasourceTimeZone1795910400000,
  DatasourceReadOnlyLogin1795996800000,
];
