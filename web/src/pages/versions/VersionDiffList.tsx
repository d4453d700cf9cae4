import { get, seg } from '../../shared/api';
import { ErrorMessage, Loading } from '../../shared/ui';
import { useLoad } from '../../shared/use-load';
import type { VersionChange, VersionDiff } from '../access/access-types';

/** Headings of the parts of a diff, in the order they are shown. */
const AREAS: { area: VersionChange['area']; title: string }[] = [
  { area: 'api', title: 'Table APIs' },
  { area: 'table', title: 'Model tables' },
  { area: 'enum', title: 'Enums' },
  { area: 'rule', title: 'Row rules (by role)' },
];

const CHANGE_WORDS = { added: 'added', removed: 'removed', changed: 'changed' } as const;

/** The diff of the signed-in builder's working version of an app against main. */
export function useVersionDiff(appId: string) {
  return useLoad(() => get<VersionDiff>(`/api/apps/${seg(appId)}/versions/diff`), appId);
}

/**
 * What publishing the working version changes (issue 27 item 5), from
 * `GET /api/apps/:appId/versions/diff`: per part (Table APIs, model tables, enums, row rules) each
 * added, removed or changed thing with what changed in it; or that nothing differs. `headingLevel`
 * fits the headings to where the list is shown (a page, a dialog).
 */
export function VersionDiffList({
  diff,
  headingLevel = 3,
}: {
  diff: ReturnType<typeof useVersionDiff>;
  headingLevel?: 2 | 3;
}) {
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  const Sub = headingLevel === 2 ? 'h3' : 'h4';
  if (diff.loading && !diff.data) return <Loading what="the changes" />;
  if (diff.error) return <ErrorMessage error={diff.error} />;
  const data = diff.data;
  if (!data) return null;
  return (
    <section aria-label="Changes against the main version">
      <Heading>Changes against the main version (revision {data.mainRevision})</Heading>
      {data.workingRevision === null ? (
        <p>You have no working version: it is the main version, and publishing changes nothing.</p>
      ) : data.changes.length === 0 ? (
        <p>Your working version holds no change against the main version.</p>
      ) : (
        AREAS.map(({ area, title }) => {
          const changes = data.changes.filter((c) => c.area === area);
          if (changes.length === 0) return null;
          return (
            <div key={area}>
              <Sub>{title}</Sub>
              <ul className="diff-list" aria-label={title}>
                {changes.map((c) => (
                  <li key={`${c.change}:${c.name}`}>
                    <strong>{c.name}</strong> {CHANGE_WORDS[c.change]}
                    {c.details.length > 0 && (
                      <ul>
                        {c.details.map((d) => (
                          <li key={d}>{d}</li>
                        ))}
                      </ul>
                    )}
                  </li>
                ))}
              </ul>
            </div>
          );
        })
      )}
    </section>
  );
}
