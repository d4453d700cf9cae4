import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { InjectRepository } from '@nestjs/typeorm';
import { hash, verify } from '@node-rs/argon2';
import { randomUUID } from 'node:crypto';
import { Repository } from 'typeorm';
import { DomainError, ErrorCode, notFound } from '../common/domain-error';
import { EventsService } from '../events/events.service';
import { DUMMY_HASH } from '../platform/accounts.service';
import { AppUserEntity } from './entities/app-user.entity';

/** Attribute values an app user carries into row rules (`$user.<attribute>`). */
export type UserAttributes = Record<string, string | number | boolean | null>;

/** An app user as routes return it: never the password hash. */
export interface AppUserView {
  id: string;
  email: string;
  roles: string[];
  attributes: UserAttributes;
  disabled: boolean;
}

/** What an app user's session proves at the GraphQL endpoint (the row rules read it). */
export interface AppUserPrincipal {
  userId: string;
  appId: string;
  roles: string[];
  attributes: UserAttributes;
}

/** App-user session lifetime: 12 hours, in seconds. */
export const APP_USER_SESSION_TTL_SECONDS = 12 * 60 * 60;
/** The `typ` claim of app-user tokens: never taken for a platform session, and the reverse. */
const TOKEN_TYPE = 'app-user';

const view = (u: AppUserEntity): AppUserView => ({
  id: u.id,
  email: u.email,
  roles: JSON.parse(u.roles) as string[],
  attributes: JSON.parse(u.attributes) as UserAttributes,
  disabled: u.disabled,
});

const badCredentials = () => new DomainError(ErrorCode.Unauthenticated, 'Wrong email or password');
const invalidSession = () =>
  new DomainError(ErrorCode.Unauthenticated, 'Invalid or expired session token');

/**
 * Users of an app (CONTRACT.md §4): created by builders, signed in at
 * `POST /api/apps/:appId/auth/login`. Passwords are Argon2id hashes (`@node-rs/argon2`, as
 * platform accounts). Sessions are HS256 JWTs with `typ: "app-user"`, the app's id and the user's
 * session epoch: a token works at its own app's GraphQL endpoint only, and disabling a user (or
 * changing the password) raises the epoch, which ends every session on the next request.
 */
@Injectable()
export class AppUsersService {
  constructor(
    @InjectRepository(AppUserEntity) private readonly users: Repository<AppUserEntity>,
    private readonly jwt: JwtService,
    private readonly events: EventsService,
  ) {}

  /** Creates a user of `appId`. @throws DomainError CONFLICT when the email is taken in that app. */
  async create(
    appId: string,
    input: { email: string; password: string; roles: string[]; attributes?: UserAttributes },
  ): Promise<AppUserView> {
    const email = input.email.trim().toLowerCase();
    if (await this.users.existsBy({ appId, email })) {
      throw new DomainError(ErrorCode.Conflict, `An app user with email ${email} exists already`);
    }
    const user = this.users.create({
      id: randomUUID(),
      appId,
      email,
      passwordHash: await hash(input.password),
      roles: JSON.stringify([...new Set(input.roles)]),
      attributes: JSON.stringify(input.attributes ?? {}),
      disabled: false,
      sessionEpoch: 0,
      createdAt: new Date().toISOString(),
    });
    await this.users.insert(user);
    return view(user);
  }

  /** The users of an app, by email. */
  async list(appId: string): Promise<AppUserView[]> {
    return (await this.users.find({ where: { appId }, order: { email: 'ASC' } })).map(view);
  }

  /**
   * Changes a user's roles, attributes, password or disabled switch. Disabling or a new password
   * ends the user's sessions (on their next request); any change ends their open subscriptions
   * that no longer hold (`AppUserChanged`, on every instance before this answers).
   * @throws DomainError NOT_FOUND.
   */
  async update(
    appId: string,
    userId: string,
    change: {
      roles?: string[];
      attributes?: UserAttributes;
      password?: string;
      disabled?: boolean;
    },
  ): Promise<AppUserView> {
    const user = await this.users.findOneBy({ id: userId, appId });
    if (!user) throw notFound('App user', userId);
    if (change.roles) user.roles = JSON.stringify([...new Set(change.roles)]);
    if (change.attributes) user.attributes = JSON.stringify(change.attributes);
    if (change.password !== undefined) user.passwordHash = await hash(change.password);
    if (change.disabled !== undefined) user.disabled = change.disabled;
    if (change.password !== undefined || change.disabled === true) user.sessionEpoch++;
    await this.users.save(user);
    await this.events.appUserChanged({ appId, userId });
    return view(user);
  }

  /**
   * Signs a user of `appId` in.
   * @returns a session token for that app's GraphQL endpoint.
   * @throws DomainError UNAUTHENTICATED on any mismatch, or when the user is disabled.
   */
  async login(appId: string, email: string, password: string): Promise<string> {
    const user = await this.users.findOneBy({ appId, email: email.trim().toLowerCase() });
    const ok = await verify(user?.passwordHash ?? DUMMY_HASH, password).catch(() => false);
    if (!user || !ok || user.disabled) throw badCredentials();
    return this.jwt.signAsync(
      { sub: user.id, app: appId, epoch: user.sessionEpoch, typ: TOKEN_TYPE },
      { expiresIn: APP_USER_SESSION_TTL_SECONDS },
    );
  }

  /** Whether a bearer token is an app-user token at all (so the caller resolver can route it). */
  async isAppUserToken(token: string): Promise<boolean> {
    try {
      const claims = await this.jwt.verifyAsync<{ typ?: string }>(token, { algorithms: ['HS256'] });
      return claims.typ === TOKEN_TYPE;
    } catch {
      return false;
    }
  }

  /**
   * The principal of app user `userId` of `appId`, as its own session would prove it: what a
   * builder's "view as" (`x-view-as-user` at the GraphQL endpoint) runs the request as.
   * @throws DomainError NOT_FOUND (no such user of this app), CONFLICT (the user is disabled: every
   * call of theirs is refused, so there are no rows to show).
   */
  async principalFor(appId: string, userId: string): Promise<AppUserPrincipal> {
    const user = await this.users.findOneBy({ id: userId, appId });
    if (!user) throw notFound('App user', userId);
    if (user.disabled)
      throw new DomainError(
        ErrorCode.Conflict,
        'This app user is disabled: every call of theirs is refused; enable them to view as them',
      );
    const v = view(user);
    return { userId: v.id, appId, roles: v.roles, attributes: v.attributes };
  }

  /**
   * The principal an app-user token proves at `appId`'s endpoint. The user is read on every
   * request, so a disabled user or a raised epoch is refused at once on every instance.
   * @throws DomainError UNAUTHENTICATED for an invalid or expired token, another app's token, a
   * disabled user or an ended session.
   */
  async authenticate(appId: string, token: string): Promise<AppUserPrincipal> {
    let claims: { sub: string; app: string; epoch: number; typ: string };
    try {
      claims = await this.jwt.verifyAsync(token, { algorithms: ['HS256'] });
    } catch {
      throw invalidSession();
    }
    if (claims.typ !== TOKEN_TYPE || claims.app !== appId) throw invalidSession();
    const user = await this.users.findOneBy({ id: claims.sub, appId });
    if (!user || user.disabled || user.sessionEpoch !== claims.epoch) throw invalidSession();
    const v = view(user);
    return { userId: v.id, appId, roles: v.roles, attributes: v.attributes };
  }
}
