/**
 * Write-only organizer settings (the keys marked `writeOnly` in settings-keys.ts: the
 * organizer's Stripe keys). They are stored sealed, as the events' ticket signing keys are:
 * AES-256-GCM under the key derived from the deployment secret TICKET_SIGNING_KEY_SECRET
 * (lib/ticket-signing.ts), bound to the organizer and the setting's name, so a sealed value
 * opens only for its own organizer and key. The API never reads them back (reads show whether
 * one is set), and nothing logs them.
 */
import type { Env } from "../../lib/env";
import { log } from "../../lib/log";
import { Problems } from "../../lib/failure";
import { seal, unseal } from "../../lib/ticket-signing";
import { ORGANIZER_SETTINGS } from "./settings-keys";
import { deploymentSecret } from "../tickets/ticket-secrets";

export const NO_SEALING_SECRET =
  "Secrets are stored sealed with the deployment secret TICKET_SIGNING_KEY_SECRET (at least 32 characters), which is not configured.";

/** What a sealed setting is bound to. */
const sealContext = (organizerId: number, key: string) => `organizer:${organizerId}:${key}`;

/**
 * The values of a settings change with every write-only key sealed; without the deployment
 * secret such keys are refused (field errors), nothing is stored.
 */
export async function sealWriteOnly(
  env: Env,
  organizerId: number,
  set: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const keys = Object.keys(set).filter((k) => ORGANIZER_SETTINGS[k]?.writeOnly);
  if (keys.length === 0) return set;
  const secret = deploymentSecret(env);
  if (!secret) {
    const problems = new Problems();
    for (const key of keys) problems.add(key, NO_SEALING_SECRET);
    problems.throwIfAny();
  }
  const out = { ...set };
  for (const key of keys) {
    out[key] = await seal(secret!, new TextEncoder().encode(String(set[key])), sealContext(organizerId, key));
  }
  return out;
}

/**
 * The value of a write-only setting as stored (`sealed`), opened; null when it is not set, or
 * cannot be opened (no deployment secret, or another one than it was sealed with: logged).
 */
export async function openSetting(env: Env, organizerId: number, key: string, sealed: unknown): Promise<string | null> {
  if (typeof sealed !== "string") return null;
  const secret = deploymentSecret(env);
  const plain = secret ? await unseal(secret, sealed, sealContext(organizerId, key)) : null;
  if (!plain) {
    log.error("a sealed organizer setting cannot be opened with the configured TICKET_SIGNING_KEY_SECRET", {
      organizer_id: organizerId,
      setting: key,
    });
    return null;
  }
  return new TextDecoder().decode(plain);
}
