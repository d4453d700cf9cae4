import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A database an app imports tables from. The URL (with its credentials) is stored encrypted. */
@Entity('datasource')
export class DatasourceEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 }) id: string;
  @Column({ name: 'app_id', type: 'varchar', length: 36 }) appId: string;
  @Column({ type: 'varchar', length: 200 }) name: string;
  @Column({ type: 'varchar', length: 16 }) type: string;
  @Column({ name: 'url_ciphertext', type: 'text' }) urlCiphertext: string;
  /** The version the server reported at registration (decides `Dialect.capabilities`). */
  @Column({ name: 'server_version', type: 'varchar', length: 200, nullable: true }) serverVersion:
    string | null;
  /**
   * IANA zone its dates and times without zone are read in where an SQL API declares them zoned
   * instants (README "SQL APIs"); null (registered before it existed) is UTC.
   */
  @Column({ name: 'time_zone', type: 'varchar', length: 64, nullable: true }) timeZone:
    string | null;
  /**
   * The read-only login (`{"user", "password"}` as JSON, sealed by `SecretBoxService` as the URL
   * is) query-kind SQL APIs run with (README "Datasources"); null when none is set.
   */
  @Column({ name: 'read_only_login_ciphertext', type: 'text', nullable: true })
  readOnlyLoginCiphertext: string | null;
  @Column({ name: 'created_at', type: 'varchar', length: 32 }) createdAt: string;
}
