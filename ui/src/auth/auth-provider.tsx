import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import { api } from '../api/client';

export type AuthState = 'checking' | 'setup' | 'signed-out' | 'signed-in';

interface AuthContextValue {
  state: AuthState;
  username: string | null;
  /** After setup: the account exists, log in next. */
  setupDone(): void;
  login(username: string, password: string): Promise<void>;
  logout(): Promise<void>;
}

const AuthContext = createContext<AuthContextValue | null>(null);

/**
 * Where the app stands: first-run setup, signed out, or signed in. On load the refresh cookie,
 * when the browser holds one, gives a new access token, so a reload keeps the session.
 */
export function AuthProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<AuthState>('checking');
  const [username, setUsername] = useState<string | null>(null);

  useEffect(() => {
    const off = api.onSessionChange((session) => {
      setUsername(session?.username ?? null);
      setState((prev) => (session ? 'signed-in' : prev === 'setup' ? 'setup' : 'signed-out'));
    });
    void (async () => {
      try {
        const status = await api.request<{ setup_required: boolean }>(
          'GET',
          '/api/setup/status',
          undefined,
          { auth: false },
        );
        if (status.setup_required) {
          setState('setup');
          return;
        }
      } catch {
        // Steward unreachable or refusing: the login page says what the API answers.
      }
      if (!(await api.refresh())) setState('signed-out');
    })();
    return off;
  }, []);

  const login = useCallback((user: string, password: string) => api.login(user, password), []);
  const logout = useCallback(() => api.logout(), []);
  const setupDone = useCallback(() => setState('signed-out'), []);

  return (
    <AuthContext.Provider value={{ state, username, login, logout, setupDone }}>
      {children}
    </AuthContext.Provider>
  );
}

export function useAuth(): AuthContextValue {
  const value = useContext(AuthContext);
  if (!value) throw new Error('useAuth outside AuthProvider');
  return value;
}
