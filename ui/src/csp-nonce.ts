/**
 * Steward stamps each index.html with a fresh nonce (src/api/routes/ui.ts); its
 * Content-Security-Policy lets only `<style>` elements carrying it apply, which is how Mantine and
 * the code editor add their styles. Browsers hide the attribute but keep the `nonce` property.
 */
export const cspNonce: string =
  document.querySelector<HTMLMetaElement>('meta[property="csp-nonce"]')?.nonce ?? '';

/*
 * react-remove-scroll (Mantine's modals) writes its `<style>` with the nonce `get-nonce` finds,
 * which looks for this webpack-era global when nobody called its setter.
 */
(globalThis as { __webpack_nonce__?: string }).__webpack_nonce__ = cspNonce;
