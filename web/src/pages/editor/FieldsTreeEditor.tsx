import { useId, useState } from 'react';
import type { FieldsTree, ModelRelation, ModelTable } from '../../shared/types';
import { VisuallyHidden } from '../../shared/ui';
import { setColumn, setNavigation, startingFields, subtreeAt } from './fields-tree';

/** What every level of the tree needs. */
interface TreeContext {
  tables: Map<string, ModelTable>;
  tree: FieldsTree;
  /** Root columns that stay ticked (required while insert or update is on). */
  locked: Set<string>;
  onChange: (tree: FieldsTree) => void;
}

/**
 * The included-fields tree of a Table API (CONTRACT.md §3): a checkbox per column and per
 * navigation field; a navigation field opens the fields of the table it leads to, to any depth.
 * Required columns are ticked and locked while insert or update is on.
 */
export function FieldsTreeEditor({ table, ...context }: TreeContext & { table: ModelTable }) {
  return (
    <div className="fieldset">
      <TableLevel context={context} table={table} path={[]} label={`Fields of ${table.name}`} />
    </div>
  );
}

/** The fields of one table at one place in the tree. */
function TableLevel({
  context,
  table,
  path,
  label,
  id,
}: {
  context: TreeContext;
  table: ModelTable;
  path: string[];
  label: string;
  id?: string;
}) {
  const level = subtreeAt(context.tree, path) ?? {};
  const prefix = useId();
  return (
    <ul className="tree" id={id} aria-label={label}>
      {table.fields.map((field) => {
        const box = `${prefix}-c-${field.name}`;
        const locked = path.length === 0 && context.locked.has(field.name);
        const notes = [field.dbType, ...(field.primaryKey ? ['primary key'] : [])];
        return (
          <li key={`c:${field.name}`} className="check">
            <input
              type="checkbox"
              id={box}
              checked={locked || level[field.name] === true}
              disabled={locked}
              aria-describedby={`${box}-hint`}
              onChange={(e) =>
                context.onChange(setColumn(context.tree, path, field.name, e.target.checked))
              }
            />
            <label htmlFor={box}>{field.name}</label>
            <span className="hint" id={`${box}-hint`}>
              {notes.join(', ')}
              {locked && <span className="badge badge--required">required while writing</span>}
            </span>
          </li>
        );
      })}
      {table.relations.map((relation) => (
        <NavigationRow
          key={`n:${relation.name}`}
          context={context}
          relation={relation}
          path={path}
          included={typeof level[relation.name] === 'object'}
        />
      ))}
    </ul>
  );
}

/** A navigation field: its checkbox, and a button that shows the fields of its table. */
function NavigationRow({
  context,
  relation,
  path,
  included,
}: {
  context: TreeContext;
  relation: ModelRelation;
  path: string[];
  included: boolean;
}) {
  const [open, setOpen] = useState(false);
  const id = useId();
  const target = context.tables.get(relation.to);
  const where = [...path, relation.name].join(' › ');
  const kind = relation.kind === 'manyToOne' ? `one ${relation.to}` : `many ${relation.to}`;
  return (
    <li className="tree-navigation">
      <div className="check">
        <input
          type="checkbox"
          id={`${id}-box`}
          checked={included}
          disabled={!target}
          aria-describedby={`${id}-hint`}
          onChange={(e) => {
            if (!target) return;
            context.onChange(
              setNavigation(
                context.tree,
                path,
                relation.name,
                e.target.checked ? startingFields(target) : null,
              ),
            );
            if (e.target.checked) setOpen(true);
          }}
        />
        <label htmlFor={`${id}-box`}>{relation.name}</label>
        <span className="hint" id={`${id}-hint`}>
          navigation to {kind}
        </span>
        {target && (
          <button
            type="button"
            className="tree-toggle"
            aria-expanded={open}
            aria-controls={`${id}-fields`}
            onClick={() => setOpen(!open)}
          >
            {open ? 'Hide fields' : 'Show fields'}
            <VisuallyHidden> of {where}</VisuallyHidden>
          </button>
        )}
      </div>
      {open && target && (
        <TableLevel
          context={context}
          table={target}
          path={[...path, relation.name]}
          label={`Fields of ${where}`}
          id={`${id}-fields`}
        />
      )}
    </li>
  );
}
