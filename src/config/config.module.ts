import { Global, Module } from '@nestjs/common';
import { AppConfig } from './app-config';

/** Injection token of the validated {@link AppConfig}. */
export const APP_CONFIG = Symbol('APP_CONFIG');

/**
 * Provides the validated configuration to every module. The config is loaded before Nest starts
 * (see `main.ts`) so a bad value stops the process with one line and no stack.
 */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: AppConfig) {
    return {
      module: ConfigModule,
      providers: [{ provide: APP_CONFIG, useValue: config }],
      exports: [APP_CONFIG],
    };
  }
}
