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
  /** A disabled account cannot sign in and has no session. */
  @Column({ type: 'boolean', default: false }) disabled: boolean;
  /**
   * Carried in every session token (`ver`); raising it ends all of the account's sessions
   * (password, role or disabled switch changed, signed out everywhere).
   */
  @Column({ name: 'token_version', type: 'integer', default: 0 }) tokenVersion: number;
  /**
   * Sessions ended one by one at sign-out, as JSON text `[{sid, exp}]` (`exp`: epoch seconds at
   * which the token expires anyway; entries past it are dropped at the next sign-out).
   */
  @Column({ name: 'ended_sessions', type: 'text', default: '[]' }) endedSessions: string;
}
