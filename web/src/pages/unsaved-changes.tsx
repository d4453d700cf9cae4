import { useEffect, useId, type ReactNode } from 'react';
import { useBlocker, type Location } from 'react-router';
import { ConfirmDialog } from '../shared/ConfirmDialog';

/** The guards holding unsaved changes right now, by hook instance. */
const unsaved = new Set<string>();

/** Whether a page of this tab holds changes not saved yet (sign-out asks before losing them). */
export function hasUnsavedChanges(): boolean {
  return unsaved.size > 0;
}

/**
 * The `state` of a navigation that leaves a page on purpose without asking: after saving, after
 * signing out (asked before), or when the session is gone and nothing could be saved anyway.
 */
export const UNGUARDED = { unguarded: true } as const;

/** Whether a navigation was marked {@link UNGUARDED}. */
function unguarded(location: Location): boolean {
  return (location.state as { unguarded?: boolean } | null)?.unguarded === true;
}

/**
 * Keeps unsaved changes from being lost without a word while `dirty`: the browser asks before
 * the tab is closed, reloaded or sent to another site (`beforeunload`), and a navigation inside
 * the pages (a link, Back) waits for the answer to a {@link ConfirmDialog} "Leave without
 * saving?". Render what it answers (the dialog, while one is asked).
 * @param what the changes, as the dialog names them ("your changes to this Table API").
 */
export function useUnsavedChangesGuard(dirty: boolean, what: string): ReactNode {
  const id = useId();
  useEffect(() => {
    if (!dirty) return;
    unsaved.add(id);
    const ask = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Older browsers ask only when a value is set; the text itself is never shown.
      event.returnValue = '';
    };
    window.addEventListener('beforeunload', ask);
    return () => {
      unsaved.delete(id);
      window.removeEventListener('beforeunload', ask);
    };
  }, [dirty, id]);
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) =>
      dirty && currentLocation.pathname !== nextLocation.pathname && !unguarded(nextLocation),
  );
  if (blocker.state !== 'blocked') return null;
  return (
    <ConfirmDialog
      title="Leave without saving?"
      confirmLabel="Leave without saving"
      cancelLabel="Stay on this page"
      onConfirm={() => blocker.proceed()}
      onClose={() => blocker.reset()}
    >
      <p>You have not saved {what}. If you leave this page now, they are lost.</p>
    </ConfirmDialog>
  );
}
