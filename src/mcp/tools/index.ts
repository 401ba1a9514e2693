import type { LoadedConfig } from '../../config/load.js';
import type { ToolDefinition } from '../tool-types.js';
import { calendarRead } from './calendar-read.js';
import { githubTools } from './github-tools.js';
import { memoryTools } from './memory-tools.js';
import { vaultTools } from './vault-tools.js';
import { webFetch } from './web-fetch.js';
import { workspaceTools } from './workspace-tools.js';

/**
 * The built-in tools this configuration supports; a capability that is not configured is not
 * offered at all, so the AI never sees a tool that can only fail.
 */
export function builtinTools(config: LoadedConfig): ToolDefinition[] {
  return [
    ...workspaceTools(),
    ...memoryTools(),
    ...vaultTools(config),
    ...(config.calendar.feeds.length > 0 ? [calendarRead] : []),
    ...(config.github.token ? githubTools() : []),
    webFetch,
  ];
}
