/**
 * The document title of each screen, from its path alone (every screen gets one without each
 * page setting it): the screen first, then "Steward", so a tab strip shows what differs.
 */
export function pageTitle(pathname: string): string {
  const parts = pathname
    .split('/')
    .filter(Boolean)
    .map((p) => {
      try {
        return decodeURIComponent(p);
      } catch {
        return p;
      }
    });
  return `${screenName(parts)} · Steward`;
}

function screenName(parts: string[]): string {
  const [section, item, action] = parts;
  if (!section) return 'Dashboard';
  if (section === 'login' && parts.length === 1) return 'Log in';
  if (section === 'setup' && parts.length === 1) return 'Set up';
  if (section === 'scripts') {
    if (!item) return 'Scripts';
    if (item === 'new' && !action) return 'New script';
    if (parts.length === 2) return `${item} · Scripts`;
    if (action === 'edit' && parts.length === 3) return `Edit ${item}`;
    if (action === 'review' && parts.length === 3) return `Review ${item}`;
  }
  if (section === 'schedules') {
    if (!item) return 'Schedules';
    if (item === 'new' && !action) return 'New schedule';
    if (parts.length === 2) return 'Schedule';
  }
  if (section === 'sessions') {
    if (!item) return 'Sessions';
    if (parts.length === 2) return 'Session';
  }
  // activity: the Activity screen being built beside this one (issue 44).
  const fixed: Record<string, string> = { secrets: 'Secrets', chat: 'Chat', activity: 'Activity' };
  if (parts.length === 1 && fixed[section]) return fixed[section];
  return 'Page not found';
}
