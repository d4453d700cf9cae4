import {
  IsEmail,
  IsIn,
  IsOptional,
  IsString,
  Length,
  Matches,
  MinLength,
  ValidateIf,
} from 'class-validator';

/** Emails may be local (`admin@localhost` is the contract's default administrator, §1). */
const EMAIL = { require_tld: false } as const;

/** `POST /api/auth/login` body. */
export class LoginDto {
  @IsEmail(EMAIL) email: string;
  @IsString() password: string;
}

/** `POST /api/admin/accounts` body. */
export class CreateAccountDto {
  @IsEmail(EMAIL) email: string;
  @IsString() @MinLength(8) password: string;
  @IsIn(['admin', 'builder']) role: 'admin' | 'builder';
}

/** Host name rule for an app's own domain (RFC 1123 labels, at least one dot). */
export const DOMAIN_PATTERN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** `POST /api/apps` body (CONTRACT.md §3). */
export class CreateAppDto {
  @IsString() @Length(1, 200) name: string;
  @Matches(/^[a-z0-9-]{2,63}$/, { message: 'address must be 2–63 characters of a-z, 0-9 and -' })
  address: string;
}

/** `PATCH /api/apps/:appId` body. */
export class UpdateAppDto {
  @IsOptional() @IsString() @Length(1, 200) name?: string;
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @Matches(DOMAIN_PATTERN, { message: 'domain must be a host name such as shop.example.com' })
  domain?: string | null;
}
