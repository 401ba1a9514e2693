import { AppShell, Badge, Burger, Button, Group, NavLink, Text, Title } from '@mantine/core';
import { useDisclosure, useMediaQuery } from '@mantine/hooks';
import { useEffect, useRef, type ReactNode } from 'react';
import { Link, useLocation } from 'react-router-dom';
import { useAuth } from '../auth/auth-provider';
import { pageTitle } from '../page-title';
import { UnreachableBanner, useLiveStatus } from './live-status';

interface Section {
  to: string;
  label: string;
  exact?: boolean;
  count?: 'pending' | 'pairings';
}

const sections: Section[] = [
  { to: '/', label: 'Dashboard', exact: true },
  { to: '/scripts', label: 'Scripts', count: 'pending' },
  { to: '/secrets', label: 'Secrets' },
  { to: '/schedules', label: 'Schedules' },
  { to: '/sessions', label: 'Sessions' },
  { to: '/chat', label: 'Chat', count: 'pairings' },
  { to: '/activity', label: 'Activity' },
];

/** What a section's count means, said to screen readers (the link's name stays its label). */
const countMeaning = {
  pending: (n: number) => `${n} ${n === 1 ? 'script waits' : 'scripts wait'} for review`,
  pairings: (n: number) => `${n} pairing ${n === 1 ? 'request waits' : 'requests wait'}`,
};

/** Mantine's `sm` breakpoint, below which the navigation is a menu behind a button. */
const PHONE = '(max-width: 47.99em)';

export function AppLayout({ children }: { children: ReactNode }) {
  const [opened, { toggle, close }] = useDisclosure();
  const phone = useMediaQuery(PHONE, false, { getInitialValueInEffect: false });
  const { username, logout } = useAuth();
  const location = useLocation();
  const main = useRef<HTMLElement>(null);
  const menuButton = useRef<HTMLButtonElement>(null);
  const live = useLiveStatus(location.pathname);

  // A new screen: close the mobile menu, name the screen in the title and move focus to the
  // content, as a page load would.
  useEffect(() => {
    close();
    document.title = pageTitle(location.pathname);
    main.current?.focus();
  }, [location.pathname, close]);

  // Escape closes the open menu and gives focus back to its button.
  useEffect(() => {
    if (!opened) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      close();
      menuButton.current?.focus();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [opened, close]);

  // On a phone the closed menu is off screen: inert, so Tab never lands on a hidden link.
  const hiddenMenu = phone && !opened;

  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding={{ base: 'sm', sm: 'md' }}
    >
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <AppShell.Header>
        <Group h="100%" px={{ base: 'xs', sm: 'md' }} justify="space-between" wrap="nowrap">
          <Group gap="xs" wrap="nowrap">
            <Burger
              ref={menuButton}
              opened={opened}
              onClick={toggle}
              hiddenFrom="sm"
              size="md"
              aria-label="Menu"
              aria-expanded={opened}
              aria-controls="main-navigation"
              className="menu-button"
            />
            <Title order={1} size="h3">
              Steward
            </Title>
            <Text c="dimmed" size="sm" visibleFrom="sm">
              administration
            </Text>
          </Group>
          <Group gap="xs" wrap="nowrap" miw={0}>
            <Text size="sm" aria-label="Signed in as" truncate="end" className="signed-in-as">
              {username}
            </Text>
            <Button variant="default" size="xs" onClick={() => void logout()}>
              Log out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar
        p="xs"
        aria-label="Sections"
        id="main-navigation"
        inert={hiddenMenu}
        aria-hidden={hiddenMenu || undefined}
      >
        <nav aria-label="Main">
          {sections.map((s) => {
            const active = s.exact
              ? location.pathname === s.to
              : location.pathname === s.to || location.pathname.startsWith(`${s.to}/`);
            const count = s.count ? live[s.count] : null;
            const countId = `nav-count-${s.label.toLowerCase()}`;
            return (
              <NavLink
                key={s.to}
                component={Link}
                to={s.to}
                label={s.label}
                active={active}
                aria-current={active ? 'page' : undefined}
                aria-describedby={count ? countId : undefined}
                onClick={close}
                rightSection={
                  s.count && count ? (
                    // Out of the link's name ("Scripts" stays "Scripts"), said as its
                    // description: aria-describedby reads hidden text too.
                    <span aria-hidden>
                      <Badge size="sm" color="indigo.9" variant="filled">
                        {count}
                      </Badge>
                      <span id={countId} className="visually-hidden">
                        {countMeaning[s.count](count)}
                      </span>
                    </span>
                  ) : null
                }
              />
            );
          })}
        </nav>
      </AppShell.Navbar>
      <AppShell.Main id="main" ref={main} tabIndex={-1}>
        <UnreachableBanner show={live.unreachable} />
        {children}
      </AppShell.Main>
    </AppShell>
  );
}
