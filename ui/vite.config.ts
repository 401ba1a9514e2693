import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * The admin web UI, built by `npm run build` into `dist/ui`. Steward serves `index.html` itself
 * (src/api/routes/ui.ts): it swaps {@link CSP_NONCE_PLACEHOLDER} for a fresh nonce per response,
 * which the Content-Security-Policy then allows for the `<style>` elements Mantine writes.
 */
export const CSP_NONCE_PLACEHOLDER = 'STEWARD_CSP_NONCE';

export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [react()],
  html: { cspNonce: CSP_NONCE_PLACEHOLDER },
  build: {
    outDir: '../dist/ui',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // Inlined assets would be data: URLs; the CSP allows images from 'self' and data: only.
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 600,
  },
  server: {
    // `npx vite ui` against a running `steward start`.
    proxy: { '/api': { target: 'http://127.0.0.1:8080', ws: true } },
  },
});
