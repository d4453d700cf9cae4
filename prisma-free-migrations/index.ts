import { InitialSchema1763683200000 } from './1763683200000-initial-schema';

/** Every metadata migration, oldest first; run at start on SQLite and PostgreSQL alike. */
export const METADATA_MIGRATIONS = [InitialSchema1763683200000];
