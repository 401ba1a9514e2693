import { z } from 'zod';
import { BadRequestError } from '../errors/request-errors.js';
import type { EnginePreferencesRepository } from '../store/engine-preferences-repository.js';
import type { EngineClient, EngineProviders, ModelRef } from './client.js';

export interface ModelView {
  provider_id: string;
  model_id: string;
  context_limit: number;
  output_limit: number;
}

export interface ModelsList {
  models: ModelView[];
  /** Null only when the engine knows no model at all. */
  default: ModelRef | null;
}

export interface ModelsServiceOptions {
  client: EngineClient;
  preferences: EnginePreferencesRepository;
  /** How long the provider list is served from memory (default PROVIDERS_TTL_MS). */
  providersTtlMs?: number;
}

export interface ModelsService {
  list(): Promise<ModelsList>;
  /** Validates the pair against the engine's providers and stores it; applies to new sessions only. */
  setDefault(input: unknown): Promise<{ ok: true; default: ModelRef }>;
}

export const modelRefSchema = z.object({
  provider: z.string().min(1, 'provider is required'),
  model: z.string().min(1, 'model is required'),
});

/** How long the engine's provider list is served from memory before it is asked again. */
export const PROVIDERS_TTL_MS = 60_000;

export function createModelsService(options: ModelsServiceOptions): ModelsService {
  const { client, preferences } = options;
  const ttlMs = options.providersTtlMs ?? PROVIDERS_TTL_MS;
  // The engine takes ~1.5 s to list its providers the first time: the list is kept, and once it
  // is stale the old one is served while a fresh one is fetched (one fetch at a time).
  let cached: { at: number; providers: EngineProviders } | null = null;
  let fetching: Promise<EngineProviders> | null = null;
  const fetchProviders = () =>
    (fetching ??= client
      .providers()
      .then((providers) => {
        cached = { at: Date.now(), providers };
        return providers;
      })
      .finally(() => {
        fetching = null;
      }));
  const providers = async (): Promise<EngineProviders> => {
    if (!cached) return fetchProviders();
    if (Date.now() - cached.at > ttlMs) void fetchProviders().catch(() => {});
    return cached.providers;
  };

  return {
    async list() {
      const [providerList, stored] = await Promise.all([
        providers(),
        readDefaultModel(preferences),
      ]);
      const models = flatten(providerList);
      return { models, default: stored ?? (await engineDefault(client, providerList)) };
    },
    async setDefault(input) {
      const parsed = modelRefSchema.safeParse(input);
      if (!parsed.success) {
        throw new BadRequestError(parsed.error.issues.map((i) => i.message).join('; '));
      }
      const wanted = parsed.data;
      // A model added to the engine since the list was cached is looked up fresh.
      const listed = (list: EngineProviders) =>
        flatten(list).some((m) => m.provider_id === wanted.provider && m.model_id === wanted.model);
      const known = listed(await providers()) || listed(await fetchProviders());
      if (!known) throw new BadRequestError(`unknown model ${wanted.provider}/${wanted.model}`);
      await preferences.setDefaultModel(JSON.stringify(wanted));
      return { ok: true, default: wanted };
    },
  };
}

/** The stored preference, or null (also when what is stored is unreadable). */
export async function readDefaultModel(
  preferences: Pick<EnginePreferencesRepository, 'defaultModel'>,
): Promise<ModelRef | null> {
  const raw = await preferences.defaultModel();
  if (!raw) return null;
  try {
    const parsed = modelRefSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function flatten(providers: EngineProviders): ModelView[] {
  return providers.providers.flatMap((provider) =>
    Object.values(provider.models).map((model) => ({
      provider_id: provider.id,
      model_id: model.id,
      context_limit: model.limit.context,
      output_limit: model.limit.output,
    })),
  );
}

/** The engine's configured `model`, else the first provider's own default. */
async function engineDefault(
  client: EngineClient,
  providers: EngineProviders,
): Promise<ModelRef | null> {
  const configured = await client.configuredModel();
  if (configured) return configured;
  const first = providers.providers.find((p) => providers.default[p.id]);
  const model = first ? providers.default[first.id] : undefined;
  return first && model ? { provider: first.id, model } : null;
}
