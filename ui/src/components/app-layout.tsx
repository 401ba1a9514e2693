import { AppShell, Burger, Button, Group, NavLink, Text, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useEffect, useRef, type ReactNode } from 'react';
import { Link, useLocation } from 'react-router-dom';
import { useAuth } from '../auth/auth-provider';

const sections = [
  { to: '/', label: 'Dashboard', exact: true },
  { to: '/scripts', label: 'Scripts' },
  { to: '/secrets', label: 'Secrets' },
  { to: '/schedules', label: 'Schedules' },
  { to: '/sessions', label: 'Sessions' },
  { to: '/chat', label: 'Chat' },
  { to: '/activity', label: 'Activity' },
];

export function AppLayout({ children }: { children: ReactNode }) {
  const [opened, { toggle, close }] = useDisclosure();
  const { username, logout } = useAuth();
  const location = useLocation();
  const main = useRef<HTMLElement>(null);

  // A new screen: close the mobile menu and move focus to the content, as a page load would.
  useEffect(() => {
    close();
    main.current?.focus();
  }, [location.pathname, close]);

  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="md"
    >
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between">
          <Group gap="sm">
            <Burger
              opened={opened}
              onClick={toggle}
              hiddenFrom="sm"
              size="sm"
              aria-label="Toggle navigation"
            />
            <Title order={1} size="h3">
              Steward
            </Title>
            <Text c="dimmed" size="sm" visibleFrom="sm">
              administration
            </Text>
          </Group>
          <Group gap="sm">
            <Text size="sm" aria-label="Signed in as">
              {username}
            </Text>
            <Button variant="default" size="xs" onClick={() => void logout()}>
              Log out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Sections">
        <nav aria-label="Main">
          {sections.map((s) => {
            const active = s.exact
              ? location.pathname === s.to
              : location.pathname === s.to || location.pathname.startsWith(`${s.to}/`);
            return (
              <NavLink
                key={s.to}
                component={Link}
                to={s.to}
                label={s.label}
                active={active}
                aria-current={active ? 'page' : undefined}
              />
            );
          })}
        </nav>
      </AppShell.Navbar>
      <AppShell.Main id="main" ref={main} tabIndex={-1}>
        {children}
      </AppShell.Main>
    </AppShell>
  );
}
