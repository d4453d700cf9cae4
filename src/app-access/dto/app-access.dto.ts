import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsEmail,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
} from 'class-validator';
import { ROLE_NAME } from '../permissions.service';

/** `POST /api/apps/:appId/users` body (CONTRACT.md §4). */
export class CreateAppUserDto {
  @IsEmail({ require_tld: false }) @MaxLength(320) email: string;
  @IsString() @MinLength(8) @MaxLength(200) password: string;
  @IsArray()
  @ArrayMaxSize(50)
  @Matches(ROLE_NAME, {
    each: true,
    message: 'each role is a letter or _, then letters, digits, _ or -',
  })
  roles: string[];
  @IsOptional() @IsObject() attributes?: Record<string, string | number | boolean | null>;
}

/** `PATCH /api/apps/:appId/users/:userId` body. */
export class UpdateAppUserDto {
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @Matches(ROLE_NAME, {
    each: true,
    message: 'each role is a letter or _, then letters, digits, _ or -',
  })
  roles?: string[];
  @IsOptional() @IsObject() attributes?: Record<string, string | number | boolean | null>;
  @IsOptional() @IsString() @MinLength(8) @MaxLength(200) password?: string;
  @IsOptional() @IsBoolean() disabled?: boolean;
}

/** `POST /api/apps/:appId/auth/login` body. */
export class AppUserLoginDto {
  @IsEmail({ require_tld: false }) email: string;
  @IsString() @MaxLength(200) password: string;
}

/** `PUT /api/apps/:appId/permissions/:role` body: a `where` per model table. */
export class PutPermissionsDto {
  @IsObject() tables: Record<string, { where: Record<string, unknown> }>;
}
