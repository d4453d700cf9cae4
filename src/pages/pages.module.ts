import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { PlatformModule } from '../platform/platform.module';
import { BuiltPages } from './built-pages';
import { PagesMiddleware } from './pages.middleware';
import { TestTabController } from './test-tab.controller';

/**
 * The platform's pages (CONTRACT.md §10, docs/adr/0007): sign-in, API keys, the Table API editor
 * (one single-page app built from `web/` into `dist/web` by `npm run build`) and the GraphiQL
 * test tab at `GET /api/apps/:appId/apis/:apiId/test`. Pages call the existing REST with the
 * session cookie; nothing here changes data.
 */
@Module({
  imports: [PlatformModule],
  controllers: [TestTabController],
  providers: [BuiltPages],
})
export class PagesModule implements NestModule {
  /** {@link PagesMiddleware} sees every request; it answers only page URLs and assets. */
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(PagesMiddleware).forRoutes({ path: '*', method: RequestMethod.ALL });
  }
}
