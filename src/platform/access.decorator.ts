import { SetMetadata } from '@nestjs/common';

/** Who may call a route: nobody signed in needed, a builder (or admin), or an administrator. */
export type RouteAccess = 'public' | 'builder' | 'admin';

export const ROUTE_ACCESS = 'route-access';

/**
 * Declares a route's access; routes without it need a builder (CONTRACT.md §2). Read by the
 * global {@link PlatformAuthGuard}.
 */
export const Access = (access: RouteAccess) => SetMetadata(ROUTE_ACCESS, access);
