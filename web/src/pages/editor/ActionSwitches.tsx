import type { ActionName, Actions } from '../../shared/types';
import { ACTION_NAMES } from '../../shared/types';

/** How each action is named, and the operations it adds (CONTRACT.md §6). */
const ACTION_TEXT: Record<ActionName, { label: string; operations: (base: string) => string }> = {
  select: { label: 'Select', operations: (b) => `get${b}, count${b}` },
  insert: { label: 'Insert', operations: (b) => `add${b}` },
  update: { label: 'Update', operations: (b) => `update${b}` },
  delete: { label: 'Delete', operations: (b) => `delete${b}` },
};

/**
 * The four action switches of a Table API and a public switch per action (callers without a key
 * may use a public action). A public switch is off and disabled while its action is off; on a
 * view only select can be on.
 */
export function ActionSwitches({
  base,
  actions,
  publicActions,
  readOnly,
  onChange,
}: {
  base: string;
  actions: Actions;
  publicActions: Actions;
  readOnly: boolean;
  onChange: (actions: Actions, publicActions: Actions) => void;
}) {
  return (
    <fieldset className="fieldset">
      <legend className="visually-hidden">Actions</legend>
      {readOnly && <p className="hint">This table is a view: only select can be switched on.</p>}
      <table className="table switches">
        <thead>
          <tr>
            <th scope="col">Action</th>
            <th scope="col">Operations</th>
            <th scope="col">
              Public<span aria-hidden="true">*</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {ACTION_NAMES.map((action) => {
            const text = ACTION_TEXT[action];
            const disabled = readOnly && action !== 'select';
            return (
              <tr key={action}>
                <td>
                  <div className="check">
                    <input
                      type="checkbox"
                      role="switch"
                      id={`action-${action}`}
                      checked={actions[action]}
                      disabled={disabled}
                      aria-describedby={`action-${action}-hint`}
                      onChange={(e) =>
                        onChange(
                          { ...actions, [action]: e.target.checked },
                          { ...publicActions, [action]: e.target.checked && publicActions[action] },
                        )
                      }
                    />
                    <label htmlFor={`action-${action}`}>{text.label}</label>
                  </div>
                </td>
                <td id={`action-${action}-hint`}>
                  <code>{text.operations(base)}</code>
                </td>
                <td>
                  <div className="check">
                    <input
                      type="checkbox"
                      role="switch"
                      id={`public-${action}`}
                      checked={publicActions[action]}
                      disabled={!actions[action]}
                      aria-describedby="public-hint"
                      onChange={(e) =>
                        onChange(actions, { ...publicActions, [action]: e.target.checked })
                      }
                    />
                    <label htmlFor={`public-${action}`} className="visually-hidden">
                      Public {text.label.toLowerCase()}
                    </label>
                  </div>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <p className="hint" id="public-hint">
        <span aria-hidden="true">*</span>Public: callers without a key may use the action (on the
        app’s main version, once published there).
      </p>
    </fieldset>
  );
}
