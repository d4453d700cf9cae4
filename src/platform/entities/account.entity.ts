import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A platform account: an administrator or a builder (CONTRACT.md §2). */
@Entity('account')
export class AccountEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 }) id: string;
  @Column({ type: 'varchar', length: 320 }) email: string;
  /** Argon2id PHC string; never leaves the platform module. */
  @Column({ name: 'password_hash', type: 'varchar', length: 200 }) passwordHash: string;
  @Column({ type: 'varchar', length: 16 }) role: 'admin' | 'builder';
  @Column({ name: 'created_at', type: 'varchar', length: 32 }) createdAt: string;
}
