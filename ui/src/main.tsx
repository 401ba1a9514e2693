import '@mantine/core/styles.css';
import './app.css';
import {
  MantineProvider,
  createTheme,
  defaultVariantColorsResolver,
  parseThemeColor,
  type CSSVariablesResolver,
  type VariantColorsResolver,
} from '@mantine/core';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router-dom';
import { App } from './app';
import { AuthProvider } from './auth/auth-provider';
import { cspNonce } from './csp-nonce';

/**
 * Mantine's colours at WCAG AA contrast (axe checks every screen in test/ui): filled surfaces use
 * the darkest shade under white text; light and outline ones keep near-black text on a tint.
 */
const variantColorResolver: VariantColorsResolver = (input) => {
  const base = defaultVariantColorsResolver(input);
  const parsed = parseThemeColor({
    color: input.color || input.theme.primaryColor,
    theme: input.theme,
  });
  if (!parsed.isThemeColor || parsed.color === 'gray' || parsed.color === 'dark') return base;
  const c = parsed.color;
  switch (input.variant) {
    case 'filled':
      return {
        ...base,
        background: `var(--mantine-color-${c}-9)`,
        hover: `var(--mantine-color-${c}-8)`,
        color: 'var(--mantine-color-white)',
      };
    case 'light':
      return {
        ...base,
        background: `var(--mantine-color-${c}-1)`,
        hover: `var(--mantine-color-${c}-2)`,
        color: 'var(--mantine-color-gray-9)',
        border: `1px solid var(--mantine-color-${c}-4)`,
      };
    case 'outline':
      return {
        ...base,
        color: 'var(--mantine-color-gray-9)',
        border: `1px solid var(--mantine-color-${c}-7)`,
      };
    case 'subtle':
      return { ...base, color: `var(--mantine-color-${c}-9)` };
    default:
      return base;
  }
};

const theme = createTheme({
  variantColorResolver,
  respectReducedMotion: true,
  components: {
    // Plain objects, not Component.extend(): the first load then carries no modal or alert code.
    Badge: { defaultProps: { variant: 'light' } },
    // Mantine's close buttons are icons: give them a name for screen readers.
    Modal: { defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } },
    Alert: { defaultProps: { closeButtonLabel: 'Dismiss' } },
  },
  primaryColor: 'indigo',
  // Shades dark enough for 4.5:1 contrast of white text (WCAG AA, checked by axe in test/ui).
  primaryShade: { light: 8, dark: 8 },
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  fontFamilyMonospace: 'ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace',
});

/** Secondary text one shade darker than Mantine's default, for 4.5:1 contrast on white. */
const resolver: CSSVariablesResolver = () => ({
  variables: {},
  light: { '--mantine-color-dimmed': 'var(--mantine-color-gray-7)' },
  dark: {},
});

const root = document.getElementById('root');
if (!root) throw new Error('no #root element');
createRoot(root).render(
  <StrictMode>
    <MantineProvider
      theme={theme}
      defaultColorScheme="light"
      getStyleNonce={() => cspNonce}
      cssVariablesResolver={resolver}
    >
      <BrowserRouter>
        <AuthProvider>
          <App />
        </AuthProvider>
      </BrowserRouter>
    </MantineProvider>
  </StrictMode>,
);
