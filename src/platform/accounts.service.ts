import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { hash, verify } from '@node-rs/argon2';
import { randomBytes, randomUUID } from 'node:crypto';
import { Repository } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { AccountEntity } from './entities/account.entity';
import { PlatformErrors } from './platform.errors';

/** A platform account as routes return it (CONTRACT.md §2): never the password hash. */
export interface AccountView {
  id: string;
  email: string;
  role: 'admin' | 'builder';
}

const view = (a: AccountEntity): AccountView => ({ id: a.id, email: a.email, role: a.role });

/**
 * Platform accounts: creation, password check (Argon2id via `@node-rs/argon2`), and the first
 * administrator from `ADMIN_EMAIL`/`ADMIN_PASSWORD` (CONTRACT.md §1–2).
 */
@Injectable()
export class AccountsService {
  private readonly logger = new Logger('Accounts');

  constructor(
    @InjectRepository(AccountEntity) private readonly accounts: Repository<AccountEntity>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
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
    });
    await this.accounts.insert(account);
    return view(account);
  }

  /** The account for these credentials. @throws DomainError UNAUTHENTICATED on any mismatch. */
  async authenticate(email: string, password: string): Promise<AccountView> {
    const account = await this.accounts.findOneBy({ email: email.trim().toLowerCase() });
    // Verify against a dummy hash when the account is missing, so timing does not tell which.
    const ok = await verify(account?.passwordHash ?? DUMMY_HASH, password).catch(() => false);
    if (!account || !ok) throw PlatformErrors.badCredentials();
    return view(account);
  }

  /** The account with this id, or null. */
  async find(id: string): Promise<AccountView | null> {
    const account = await this.accounts.findOneBy({ id });
    return account ? view(account) : null;
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
}

/** An Argon2id hash of no password: verified against when an account is missing, so timing tells nothing. */
export const DUMMY_HASH =
  '$argon2id$v=19$m=19456,t=2,p=1$EOyzHbHaPNskofg3Jf3eSw$kOkIRD4+YjdcmIfMTP0ld/AejetU03mdmpT7/pY5Ll4';
