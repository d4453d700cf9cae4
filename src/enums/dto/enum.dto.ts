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
  @Matches(GRAPHQL_NAME, { message: NAME_MESSAGE }) value: string;
  @IsOptional() @IsString() @Length(0, 200) label?: string;
  @IsOptional() @IsString() @Length(0, 50) @NotContains(';') color?: string;
}

/** `POST /api/apps/:appId/enums` and `PUT …/enums/:name` body (CONTRACT.md §3). */
export class EnumDto {
  @Matches(GRAPHQL_NAME, { message: NAME_MESSAGE }) name: string;
  @IsOptional() @IsString() @Length(0, 1000) description?: string;
  @IsArray()
  @ArrayNotEmpty()
  @ValidateNested({ each: true })
  @Type(() => EnumValueDto)
  values: EnumValueDto[];
}
