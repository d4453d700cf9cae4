import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { hash, verify } from '@node-rs/argon2';
import { randomBytes, randomUUID } from 'node:crypto';
import { EntityManager, Repository } from 'typeorm';
import { notFound } from '../common/domain-error';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { EventsService } from '../events/events.service';
import { AccountEntity } from './entities/account.entity';
import { PlatformErrors } from './platform.errors';
import {
  liveEndedSessions,
  PlatformSession,
  SESSION_TTL_SECONDS,
  SessionSubject,
} from './sessions.service';

/** A platform account as routes return it (CONTRACT.md §2): never the password hash. */
export interface AccountView {
  id: string;
  email: string;
  role: 'admin' | 'builder';
}

/** A platform account as administrators see it (`/api/admin/accounts`). */
export interface AccountDetails extends AccountView {
  disabled: boolean;
  createdAt: string;
}

/** A change of an account by an administrator (`PATCH /api/admin/accounts/:accountId`). */
export interface AccountChange {
  role?: 'admin' | 'builder';
  password?: string;
  disabled?: boolean;
}

/** An account whose password was just verified, with the token version read alongside. */
export interface SignedInAccount {
  account: AccountView;
  subject: SessionSubject;
}

/**
 * Sessions ended one by one that an account keeps at most; a sign-out past it ends every session
 * of the account instead (raises the token version), so the row stays small.
 */
export const MAX_ENDED_SESSIONS = 100;

const view = (a: AccountEntity): AccountView => ({ id: a.id, email: a.email, role: a.role });
const details = (a: AccountEntity): AccountDetails => ({
  ...view(a),
  disabled: a.disabled,
  createdAt: a.createdAt,
});
const subject = (a: AccountEntity): SessionSubject => ({
  id: a.id,
  role: a.role,
  tokenVersion: a.tokenVersion,
});

/** SQL that raises the token version and forgets the sessions ended one by one (all end now). */
const RAISED_VERSION = { tokenVersion: () => 'token_version + 1', endedSessions: '[]' } as const;

/**
 * Platform accounts: creation, password check (Argon2id via `@node-rs/argon2`), the first
 * administrator from `ADMIN_EMAIL`/`ADMIN_PASSWORD` (CONTRACT.md §1–2), and their lifecycle
 * (issue 22, item 6): role, password and disabled switch, sign-out of one session or of all, and
 * never a change that leaves no active administrator. Every change that ends sessions publishes
 * `AccountChanged`, so every instance drops its cached session state at once.
 */
@Injectable()
export class AccountsService {
  private readonly logger = new Logger('Accounts');

  constructor(
    @InjectRepository(AccountEntity) private readonly accounts: Repository<AccountEntity>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly events: EventsService,
  ) {}

  /** Creates an account. @throws DomainError CONFLICT when the email is taken. */
  async create(email: string, password: string, role: 'admin' | 'builder'): Promise<AccountView> {
    const normalised = email.trim().toLowerCase();
    if (await this.accounts.existsBy({ email: normalised }))
      throw PlatformErrors.emailTaken(normalised);
    const account = this.accounts.create({
      id: randomUUID(),
      email: normalised,
      passwordHash: await hash(password),
      role,
      createdAt: new Date().toISOString(),
      disabled: false,
      tokenVersion: 0,
      endedSessions: '[]',
    });
    await this.accounts.insert(account);
    return view(account);
  }

  /**
   * The account for these credentials, with the token version read in the same row as the
   * password hash (so a password changed meanwhile can never yield a current session).
   * @throws DomainError UNAUTHENTICATED on any mismatch, and for a disabled account.
   */
  async authenticate(email: string, password: string): Promise<SignedInAccount> {
    const account = await this.accounts.findOneBy({ email: email.trim().toLowerCase() });
    // Verify against a dummy hash when the account is missing, so timing does not tell which.
    const ok = await verify(account?.passwordHash ?? DUMMY_HASH, password).catch(() => false);
    if (!account || !ok || account.disabled) throw PlatformErrors.badCredentials();
    return { account: view(account), subject: subject(account) };
  }

  /** The account with this id, or null. */
  async find(id: string): Promise<AccountView | null> {
    const account = await this.accounts.findOneBy({ id });
    return account ? view(account) : null;
  }

  /** Every account, by email. */
  async list(): Promise<AccountDetails[]> {
    return (await this.accounts.find({ order: { email: 'ASC' } })).map(details);
  }

  /**
   * Changes an account's role, password or disabled switch. A new role, a new password or
   * disabling ends every session of the account at once; enabling brings none back. A change that
   * would leave no active (not disabled) administrator is refused, also when two administrators
   * demote themselves at the same moment.
   * @throws DomainError NOT_FOUND, CONFLICT (no active administrator would remain).
   */
  async update(id: string, change: AccountChange): Promise<AccountDetails> {
    const account = await this.accounts.findOneBy({ id });
    if (!account) throw notFound('Account', id);
    const set: Partial<Record<keyof AccountEntity, unknown>> = {};
    if (change.role !== undefined) set.role = change.role;
    if (change.disabled !== undefined) set.disabled = change.disabled;
    if (change.password !== undefined) set.passwordHash = await hash(change.password);
    const endsSessions =
      (change.role !== undefined && change.role !== account.role) ||
      change.password !== undefined ||
      (change.disabled === true && !account.disabled);
    if (endsSessions) Object.assign(set, RAISED_VERSION);
    if (Object.keys(set).length) {
      const mayRemoveAdmin = change.role === 'builder' || change.disabled === true;
      const updated = await this.updateKeepingAnAdmin(id, set, mayRemoveAdmin);
      if (!updated) {
        if (!(await this.accounts.existsBy({ id }))) throw notFound('Account', id);
        throw PlatformErrors.lastAdministrator();
      }
      // Also when enabling: instances may remember the account as disabled.
      await this.events.accountChanged({ accountId: id });
    }
    const changed = await this.accounts.findOneBy({ id });
    if (!changed) throw notFound('Account', id);
    return details(changed);
  }

  /** Ends every session of an account (signed out everywhere). @throws DomainError NOT_FOUND. */
  async endSessions(id: string): Promise<void> {
    const res = await this.accounts.update({ id }, RAISED_VERSION);
    if (res.affected !== 1) throw notFound('Account', id);
    await this.events.accountChanged({ accountId: id });
  }

  /**
   * Ends one session (sign-out): its id is kept with the account until the token would have
   * expired anyway. Past {@link MAX_ENDED_SESSIONS} kept ids, or when the row keeps changing under
   * it, every session of the account ends instead.
   */
  async endSession(session: PlatformSession): Promise<void> {
    const id = session.accountId;
    for (let attempt = 0; attempt < 5; attempt++) {
      const account = await this.accounts.findOne({
        where: { id },
        select: { id: true, tokenVersion: true, endedSessions: true },
      });
      if (!account) return;
      const kept = liveEndedSessions(account.endedSessions, Date.now() / 1000).filter(
        (e) => e.sid !== session.sessionId,
      );
      if (kept.length >= MAX_ENDED_SESSIONS) break;
      kept.push({
        sid: session.sessionId,
        exp: session.expiresAt || Math.ceil(Date.now() / 1000) + SESSION_TTL_SECONDS,
      });
      // Written only if nobody changed the row since it was read (else read it again).
      const res = await this.accounts.update(
        { id, tokenVersion: account.tokenVersion, endedSessions: account.endedSessions },
        { endedSessions: JSON.stringify(kept) },
      );
      if (res.affected === 1) {
        await this.events.accountChanged({ accountId: id });
        return;
      }
    }
    await this.accounts.update({ id }, RAISED_VERSION);
    await this.events.accountChanged({ accountId: id });
  }

  /**
   * Changes the signed-in account's own password after checking the current one, and ends every
   * session of the account.
   * @returns the account and its new token version, for the session that replaces the ended ones.
   * @throws DomainError UNAUTHENTICATED (the account went or was disabled), INVALID_INPUT (wrong
   * current password), CONFLICT (the account changed meanwhile).
   */
  async changeOwnPassword(
    id: string,
    currentPassword: string,
    newPassword: string,
  ): Promise<SignedInAccount> {
    const account = await this.accounts.findOneBy({ id });
    if (!account || account.disabled) throw PlatformErrors.noSession();
    const ok = await verify(account.passwordHash, currentPassword).catch(() => false);
    if (!ok) throw PlatformErrors.wrongCurrentPassword();
    const res = await this.accounts.update(
      { id, tokenVersion: account.tokenVersion, passwordHash: account.passwordHash },
      { passwordHash: await hash(newPassword), ...RAISED_VERSION },
    );
    if (res.affected !== 1) throw PlatformErrors.accountChanged();
    await this.events.accountChanged({ accountId: id });
    const changed = { ...account, tokenVersion: account.tokenVersion + 1 };
    return { account: view(changed), subject: subject(changed) };
  }

  /**
   * Creates the first administrator when no account exists. With no `ADMIN_PASSWORD` a password is
   * generated and printed once to standard output (never to the log).
   */
  async ensureFirstAdmin(): Promise<void> {
    if ((await this.accounts.count()) > 0) return;
    const password = this.config.adminPassword ?? randomBytes(12).toString('base64url');
    await this.create(this.config.adminEmail, password, 'admin');
    this.logger.log(`Created the first administrator ${this.config.adminEmail}`);
    if (!this.config.adminPassword) {
      process.stdout.write(
        `\nFirst administrator: ${this.config.adminEmail}  password: ${password}  (shown once)\n\n`,
      );
    }
  }

  /**
   * Applies `set` to the account in one statement; when the change may take away an
   * administrator, only if another active administrator remains. On PostgreSQL the active
   * administrators' rows are locked first, so two such changes run one after the other and the
   * second sees the first (its statement reads what was committed); SQLite runs one writing
   * statement at a time anyway.
   * @returns whether the account was changed.
   */
  private async updateKeepingAnAdmin(
    id: string,
    set: Partial<Record<keyof AccountEntity, unknown>>,
    mayRemoveAdmin: boolean,
  ): Promise<boolean> {
    const run = async (manager: EntityManager): Promise<boolean> => {
      const query = manager
        .createQueryBuilder()
        .update(AccountEntity)
        .set(set as never)
        .where('id = :id', { id });
      if (mayRemoveAdmin) {
        query.andWhere(
          "EXISTS (SELECT 1 FROM account other WHERE other.role = 'admin' AND NOT other.disabled AND other.id <> :id)",
        );
      }
      return (await query.execute()).affected === 1;
    };
    if (!mayRemoveAdmin || this.accounts.manager.connection.options.type !== 'postgres')
      return run(this.accounts.manager);
    return this.accounts.manager.transaction(async (manager) => {
      await manager
        .createQueryBuilder(AccountEntity, 'a')
        .select('a.id')
        .where("a.role = 'admin' AND NOT a.disabled")
        .setLock('pessimistic_write')
        .getMany();
      return run(manager);
    });
  }
}

/** An Argon2id hash of no password: verified against when an account is missing, so timing tells nothing. */
export const DUMMY_HASH =
  '$argon2id$v=19$m=19456,t=2,p=1$EOyzHbHaPNskofg3Jf3eSw$kOkIRD4+YjdcmIfMTP0ld/AejetU03mdmpT7/pY5Ll4';
