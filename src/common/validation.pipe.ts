import { ValidationError, ValidationPipe } from '@nestjs/common';
import { invalidInput } from './domain-error';

function flatten(errors: ValidationError[], prefix = ''): string[] {
  return errors.flatMap((e) => {
    const path = prefix ? `${prefix}.${e.property}` : e.property;
    const own = Object.values(e.constraints ?? {}).map((m) => m.replace(e.property, path));
    return [...own, ...flatten(e.children ?? [], path)];
  });
}

/**
 * The body validation of every REST route (class-validator DTOs): unknown properties refused,
 * every problem listed in one `400` (CONTRACT.md §3).
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    exceptionFactory: (errors) => invalidInput('Invalid request body', flatten(errors)),
  });
}
