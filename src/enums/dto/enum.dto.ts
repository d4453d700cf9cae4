import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { GRAPHQL_NAME } from '../../common/graphql-name';
import {
  ArrayNotEmpty,
  IsArray,
  IsOptional,
  IsString,
  Length,
  Matches,
  NotContains,
  ValidateNested,
} from 'class-validator';

const NAME_MESSAGE = '$property must be a GraphQL name: a letter or _, then letters, digits or _';

/** One value of an enum. */
export class EnumValueDto {
  @ApiProperty({
    description:
      'The value, a GraphQL name (a letter or _, then letters, digits or _), not true, false or null.',
    pattern: GRAPHQL_NAME,
    example: 'PAID',
  })
  @Matches(GRAPHQL_NAME, { message: NAME_MESSAGE })
  value: string;
  @ApiPropertyOptional({
    description: 'Label shown for the value, at most 200 characters.',
    maxLength: 200,
    example: 'Paid',
  })
  @IsOptional()
  @IsString()
  @Length(0, 200)
  label?: string;
  @ApiPropertyOptional({
    description: 'Colour shown for the value, at most 50 characters and without ";".',
    maxLength: 50,
    pattern: '^[^;]*$',
    example: '#2e7d32',
  })
  @IsOptional()
  @IsString()
  @Length(0, 50)
  @NotContains(';')
  color?: string;
}

/** `POST /api/apps/:appId/enums` and `PUT …/enums/:name` body (CONTRACT.md §3). */
export class EnumDto {
  @ApiProperty({
    description:
      'Name of the enum, a GraphQL name (a letter or _, then letters, digits or _), not true, false or null.',
    pattern: GRAPHQL_NAME,
    example: 'OrderStatus',
  })
  @Matches(GRAPHQL_NAME, { message: NAME_MESSAGE })
  name: string;
  @ApiPropertyOptional({
    description: 'Description of the enum, at most 1000 characters.',
    maxLength: 1000,
    example: 'Where an order stands.',
  })
  @IsOptional()
  @IsString()
  @Length(0, 1000)
  description?: string;
  @ApiProperty({
    description: 'Values of the enum, at least one.',
    type: () => [EnumValueDto],
    minItems: 1,
  })
  @IsArray()
  @ArrayNotEmpty()
  @ValidateNested({ each: true })
  @Type(() => EnumValueDto)
  values: EnumValueDto[];
}
