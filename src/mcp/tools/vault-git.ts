import { CheckRepoActions, simpleGit, type SimpleGit } from 'simple-git';

export interface VaultGitOptions {
  dir: string;
  /** A remote name or URL; pushes go there when set. */
  remote?: string;
  branch: string;
}

export interface VaultGit {
  /** Commits one file (path relative to the vault) and pushes; returns a sentence for the AI. */
  commitFile(relPath: string, message: string): Promise<string>;
}

const fallbackIdentity = ['user.name=Steward', 'user.email=steward@localhost'];

export function createVaultGit(options: VaultGitOptions): VaultGit {
  // One git operation at a time: concurrent writes would race on the index lock.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(task: () => Promise<T>): Promise<T> => {
    const run = queue.then(task, task);
    queue = run.catch(() => undefined);
    return run;
  };

  async function open(): Promise<SimpleGit | undefined> {
    const git = simpleGit({ baseDir: options.dir });
    if (!(await git.checkIsRepo(CheckRepoActions.IS_REPO_ROOT).catch(() => false)))
      return undefined;
    // A machine without a git identity would fail every commit; give Steward's own then.
    const email = await git.getConfig('user.email').catch(() => ({ value: null }));
    return email.value ? git : simpleGit({ baseDir: options.dir, config: fallbackIdentity });
  }

  return {
    commitFile: (relPath, message) =>
      serial(async () => {
        const git = await open();
        if (!git) return 'the vault is not a git repository, so nothing was committed';
        await git.add(['--', relPath]);
        const status = await git.status();
        if (!status.files.some((file) => file.path === relPath))
          return 'the file did not change, so nothing was committed';
        // Paths go after `--`, so none can be read as an option (simple-git's commit() cannot).
        await git.raw(['commit', '-m', message, '--', relPath]);
        const hash = (await git.revparse(['HEAD'])).trim();
        let result = `committed ${hash || 'the change'}`;
        if (options.remote) {
          try {
            await git.push(options.remote, `HEAD:${options.branch}`);
            result += ` and pushed to ${options.remote} (${options.branch})`;
          } catch (err) {
            result += `, but the push to ${options.remote} failed: ${(err as Error).message.trim().split('\n')[0]}`;
          }
        }
        return result;
      }),
  };
}
