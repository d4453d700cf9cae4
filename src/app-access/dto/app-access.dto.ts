import { ApiProperty, ApiPropertyOptional, PartialType, PickType } from '@nestjs/swagger';
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

/** Schema of a user's attributes: each value a string, number, boolean or null. */
const ATTRIBUTE_VALUE = {
  oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }],
  nullable: true,
};

/** `POST /api/apps/:appId/users` body (CONTRACT.md §4). */
export class CreateAppUserDto {
  @ApiProperty({
    description:
      'Email address of the app user (a top-level domain is not required), at most 320 characters.',
    format: 'email',
    maxLength: 320,
    example: 'jane@example.com',
  })
  @IsEmail({ require_tld: false })
  @MaxLength(320)
  email: string;
  @ApiProperty({
    description: 'Password of the app user, 8 to 200 characters.',
    minLength: 8,
    maxLength: 200,
    example: 'correct-horse-battery',
  })
  @IsString()
  @MinLength(8)
  @MaxLength(200)
  password: string;
  @ApiProperty({
    description:
      'Roles of the user, at most 50; each is a letter or _, then up to 62 letters, digits, _ or -.',
    type: [String],
    maxItems: 50,
    pattern: ROLE_NAME,
    example: ['sales'],
  })
  @IsArray()
  @ArrayMaxSize(50)
  @Matches(ROLE_NAME, {
    each: true,
    message: 'each role is a letter or _, then letters, digits, _ or -',
  })
  roles: string[];
  @ApiPropertyOptional({
    description:
      'Attributes of the user, read by permission rules as `$user.<attribute>`; each value a string, number, boolean or null (default: none).',
    type: 'object',
    additionalProperties: ATTRIBUTE_VALUE,
    example: { region: 'EU', level: 3 },
  })
  @IsOptional()
  @IsObject()
  attributes?: Record<string, string | number | boolean | null>;
}

/**
 * `PATCH /api/apps/:appId/users/:userId` body: roles, attributes and password with the create
 * body's rules (`PartialType` of `@nestjs/swagger`), each optional (a new password ends the
 * user's sessions), and `disabled`.
 */
export class UpdateAppUserDto extends PartialType(
  PickType(CreateAppUserDto, ['roles', 'attributes', 'password']),
) {
  @ApiPropertyOptional({
    description: 'True disables the user and ends their sessions; false enables the user again.',
    example: false,
  })
  @IsOptional()
  @IsBoolean()
  disabled?: boolean;
}

/** `POST /api/apps/:appId/auth/login` body. */
export class AppUserLoginDto {
  @ApiProperty({
    description: 'Email address of the app user (a top-level domain is not required).',
    format: 'email',
    example: 'jane@example.com',
  })
  @IsEmail({ require_tld: false })
  email: string;
  @ApiProperty({
    description: 'Password of the app user, at most 200 characters.',
    maxLength: 200,
    example: 'correct-horse-battery',
  })
  @IsString()
  @MaxLength(200)
  password: string;
}

/** `PUT /api/apps/:appId/permissions/:role` body: a `where` per model table. */
export class PutPermissionsDto {
  @ApiProperty({
    description:
      'Row rule per model table name: `{"where": <filter>}` in the GraphQL `where` language, where a value may be "$user.id" or "$user.<attribute>"; a table without a rule shows all its rows.',
    type: 'object',
    additionalProperties: {
      type: 'object',
      properties: {
        where: {
          type: 'object',
          additionalProperties: true,
          description: 'A filter in the `where` language of the GraphQL endpoint.',
        },
      },
      required: ['where'],
    },
    example: { orders: { where: { region: { eq: '$user.region' } } } },
  })
  @IsObject()
  tables: Record<string, { where: Record<string, unknown> }>;
}
