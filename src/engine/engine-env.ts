/**
 * Environment that stops OpenCode from phoning home: no model catalogue download, no
 * self-update, no sharing, no default plugins, no Claude Code or external skill discovery.
 * Steward's `engine.env` is applied after it, so an admin can turn one back on.
 */
export const offlineEngineEnv: Readonly<Record<string, string>> = {
  OPENCODE_DISABLE_MODELS_FETCH: '1',
  OPENCODE_DISABLE_AUTOUPDATE: '1',
  OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
  OPENCODE_DISABLE_SHARE: '1',
  OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
  OPENCODE_DISABLE_CLAUDE_CODE: '1',
  OPENCODE_DISABLE_EXTERNAL_SKILLS: '1',
};

/**
 * Set last, after `engine.env`: without it an `opencode.json` (or `.opencode/`) in the workspace,
 * which the AI can write through Steward's file tools, would be merged into the engine's
 * configuration and could switch its shell and file tools back on.
 */
export const lockdownEngineEnv: Readonly<Record<string, string>> = {
  OPENCODE_DISABLE_PROJECT_CONFIG: '1',
};

/** Variables of Steward's environment an engine may inherit: locale, home, proxies, CAs. */
export const inheritedEngineEnv: readonly string[] = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'TZ',
  'TMPDIR',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'XDG_CACHE_HOME',
  'XDG_STATE_HOME',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
];
