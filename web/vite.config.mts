import react from '@vitejs/plugin-react';
import { resolve } from 'node:path';
import { defineConfig } from 'vite';

/** This folder: the pages' sources. */
const root = import.meta.dirname;

/**
 * Builds the platform's pages (docs/adr/0007) into `dist/web`, where the service serves them
 * (`src/pages/`): `index.html` (sign-in, API keys, Table API editor) and `test-tab.html`
 * (GraphiQL). Every asset is bundled into `dist/web/assets/` with a hashed name: the pages load
 * nothing from anywhere else, so the service works without internet.
 */
export default defineConfig({
  root,
  base: '/',
  publicDir: false,
  plugins: [react()],
  build: {
    outDir: resolve(root, '../dist/web'),
    emptyOutDir: true,
    assetsDir: 'assets',
    // GraphiQL brings the Monaco editor: large, loaded only by the test tab.
    chunkSizeWarningLimit: 4096,
    rolldownOptions: {
      input: {
        index: resolve(root, 'index.html'),
        'test-tab': resolve(root, 'test-tab.html'),
      },
      onLog(level, log, handler) {
        // GraphiQL's modules start with React Compiler directives ("use no memo") that bundling
        // drops harmlessly; one warning per module would bury real ones.
        if (log.code === 'MODULE_LEVEL_DIRECTIVE') return;
        handler(level, log);
      },
    },
  },
});
