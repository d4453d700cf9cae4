import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsBoolean,
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
  @ApiProperty({
    description:
      'Email address of the account; a local address such as admin@localhost is accepted.',
    format: 'email',
    example: 'admin@localhost',
  })
  @IsEmail(EMAIL)
  email: string;
  @ApiProperty({ description: 'Password of the account.', example: 'change-me-now' })
  @IsString()
  password: string;
}

/** `POST /api/admin/accounts` body. */
export class CreateAccountDto {
  @ApiProperty({
    description:
      'Email address of the new account; a local address such as admin@localhost is accepted.',
    format: 'email',
    example: 'builder@example.com',
  })
  @IsEmail(EMAIL)
  email: string;
  @ApiProperty({
    description: 'Password of the new account, at least 8 characters.',
    minLength: 8,
    example: 'correct-horse-battery',
  })
  @IsString()
  @MinLength(8)
  password: string;
  @ApiProperty({
    description: 'Role of the new account: admin (also a builder) or builder.',
    enum: ['admin', 'builder'],
    example: 'builder',
  })
  @IsIn(['admin', 'builder'])
  role: 'admin' | 'builder';
}

/** `PATCH /api/admin/accounts/:accountId` body: what changes, the rest stays. */
export class UpdateAccountDto {
  @ApiPropertyOptional({
    description:
      'New role: admin (also a builder) or builder. A different role ends every session of the account.',
    enum: ['admin', 'builder'],
    example: 'builder',
  })
  @IsOptional()
  @IsIn(['admin', 'builder'])
  role?: 'admin' | 'builder';
  @ApiPropertyOptional({
    description: 'New password, at least 8 characters. Ends every session of the account.',
    minLength: 8,
    example: 'correct-horse-battery',
  })
  @IsOptional()
  @IsString()
  @MinLength(8)
  password?: string;
  @ApiPropertyOptional({
    description:
      'true: the account cannot sign in and every session of it ends; false: it may sign in again.',
    example: true,
  })
  @IsOptional()
  @IsBoolean()
  disabled?: boolean;
}

/** `POST /api/auth/password` body. */
export class ChangePasswordDto {
  @ApiProperty({ description: 'The password the account has now.', example: 'change-me-now' })
  @IsString()
  currentPassword: string;
  @ApiProperty({
    description: 'The new password, at least 8 characters.',
    minLength: 8,
    example: 'correct-horse-battery',
  })
  @IsString()
  @MinLength(8)
  newPassword: string;
}

/** A platform account as administrators see it (answer of `/api/admin/accounts` routes). */
export class AccountDetailsAnswer {
  @ApiProperty() id: string;
  @ApiProperty() email: string;
  @ApiProperty({ enum: ['admin', 'builder'] }) role: 'admin' | 'builder';
  @ApiProperty({ description: 'A disabled account cannot sign in and has no session' })
  disabled: boolean;
  @ApiProperty({ description: 'When the account was created, ISO-8601 UTC' }) createdAt: string;
}

/** Host name rule for an app's own domain (RFC 1123 labels, at least one dot). */
export const DOMAIN_PATTERN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** `POST /api/apps` body (CONTRACT.md §3). */
export class CreateAppDto {
  @ApiProperty({
    description: 'Name of the app, 1 to 200 characters.',
    minLength: 1,
    maxLength: 200,
    example: 'Shop',
  })
  @IsString()
  @Length(1, 200)
  name: string;
  @ApiProperty({
    description:
      'Unique address of the app in its GraphQL URL, 2 to 63 characters of a-z, 0-9 and -.',
    pattern: '^[a-z0-9-]{2,63}$',
    minLength: 2,
    maxLength: 63,
    example: 'shop',
  })
  @Matches(/^[a-z0-9-]{2,63}$/, { message: 'address must be 2–63 characters of a-z, 0-9 and -' })
  address: string;
}

/** `PATCH /api/apps/:appId` body. */
export class UpdateAppDto {
  @ApiPropertyOptional({
    description: 'New name of the app, 1 to 200 characters.',
    minLength: 1,
    maxLength: 200,
    example: 'Shop',
  })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  name?: string;
  @ApiPropertyOptional({
    description:
      "The app's own domain, a lower-case host name with at least one dot (RFC 1123 labels), or null to remove it.",
    type: String,
    nullable: true,
    pattern: DOMAIN_PATTERN,
    maxLength: 253,
    example: 'shop.example.com',
  })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @Matches(DOMAIN_PATTERN, { message: 'domain must be a host name such as shop.example.com' })
  domain?: string | null;
}
