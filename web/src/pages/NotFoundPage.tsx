import { Link } from 'react-router';
import { PageHeading, usePageTitle } from '../shared/ui';

/** A page URL the app does not know. */
export function NotFoundPage() {
  usePageTitle('Not found');
  return (
    <>
      <PageHeading>Page not found</PageHeading>
      <p>
        There is no page here. <Link to="/">Go to your apps</Link>.
      </p>
    </>
  );
}
