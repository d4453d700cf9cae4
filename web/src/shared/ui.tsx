import { useEffect, useRef, type ReactNode } from 'react';

/** Sets the document title to `<title> · TableGraph` while the page is shown. */
export function usePageTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · TableGraph`;
  }, [title]);
}

/**
 * A page's main heading. It takes the focus when the page opens after a navigation inside the
 * app, so keyboard and screen-reader users start at the new page's top (the first page load
 * leaves focus where the browser puts it).
 */
export function PageHeading({ children }: { children: ReactNode }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (window.history.state?.idx > 0) ref.current?.focus();
  }, []);
  return (
    <h1 ref={ref} tabIndex={-1} className="page-heading">
      {children}
    </h1>
  );
}

/** An error the user must read: announced at once, with every listed problem. */
export function ErrorMessage({
  error,
  id,
}: {
  error: { message: string; details: string[] } | null;
  id?: string;
}) {
  if (!error) return null;
  return (
    <div className="message message--error" role="alert" id={id}>
      <p>{error.message}</p>
      {error.details.length > 0 && (
        <ul>
          {error.details.map((d) => (
            <li key={d}>{d}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** A polite status line (saved, copied, published), announced without moving the focus. */
export function StatusMessage({ children }: { children: ReactNode }) {
  return (
    <p className="message message--ok" role="status">
      {children}
    </p>
  );
}

/** A Table API's state: draft or published. */
export function StatusBadge({ status }: { status: 'draft' | 'published' | 'new' }) {
  const text = { draft: 'Draft', published: 'Published', new: 'Not saved yet' }[status];
  return <span className={`badge badge--${status}`}>{text}</span>;
}

/** Text for screen readers only. */
export function VisuallyHidden({ children }: { children: ReactNode }) {
  return <span className="visually-hidden">{children}</span>;
}

/** Shown while a page's data loads. */
export function Loading({ what }: { what: string }) {
  return (
    <p className="loading" role="status">
      Loading {what}…
    </p>
  );
}

/**
 * Where a page answers an action: the success line or the error (with every problem). It takes
 * the focus whenever its content changes, so the answer is seen and read wherever the button was.
 */
export function Feedback({
  notice,
  error,
}: {
  notice: string | null;
  error: { message: string; details: string[] } | null;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (notice || error) ref.current?.focus();
  }, [notice, error]);
  return (
    <div ref={ref} tabIndex={-1} className="feedback">
      {notice && <StatusMessage>{notice}</StatusMessage>}
      <ErrorMessage error={error} />
    </div>
  );
}
