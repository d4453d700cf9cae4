/**
 * Babel plugin (Jest only): ES modules may declare their own `const require = createRequire(…)`,
 * which collides with the `require` calls Babel's CommonJS transform emits. Renaming the module's
 * own binding first keeps both working.
 */
module.exports = function esmOwnRequire() {
  return {
    visitor: {
      Program(path) {
        if (path.scope.hasOwnBinding('require')) path.scope.rename('require', '__esmOwnRequire');
      },
    },
  };
};
