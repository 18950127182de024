/**
 * Ticket secret generators (pretix docs "Ticket secret generators"; pretix `secrets.py`), per event by
 * `ticket_secret_generator`: `random` (32 characters; never revoked, an old secret simply stops
 * existing) or `pretix_sig1` (signed, lib/ticket-signing.ts; a changed, canceled or re-issued ticket
 * gets a new secret and the old one is revoked). The event's key pair is made on first need and its
 * private key kept sealed (docs/selling-and-checkin.md "Signed tickets").
 */
import { log } from "../../lib/log";
import type { DB } from "../../db/client";
import { storedSettingsLevels } from "../../db/settings";
import { findSigningKey, type SigningKeyRow, storeSigningKey } from "../../db/ticket-secrets";
import type { Env } from "../../lib/env";
import {
  generateSigningKey,
  importSigningKey,
  importVerifyKey,
  newSeed,
  seal,
  signSig1,
  type Sig1Ticket,
  unixSeconds,
  unseal,
  verifySig1,
} from "../../lib/ticket-signing";
import { Failure } from "../../lib/failure";
import { newTicketSecret } from "../../rules/orders";

/** The generators (pretix identifiers). */
export const TICKET_SECRET_GENERATORS = ["random", "pretix_sig1"] as const;
export type TicketSecretGeneratorName = (typeof TICKET_SECRET_GENERATORS)[number];

/** The event setting that chooses the generator (pretix's key). */
export const GENERATOR_SETTING = "ticket_secret_generator";

export const SIG1 = "pretix_sig1";

/** The shortest deployment secret accepted (it derives the key that seals the events' private keys). */
const MIN_SECRET_LENGTH = 32;

/** What a secret is generated from (pretix `generate_secret`'s arguments). */
export type TicketSecretFacts = {
  itemId: number;
  variationId: number | null;
  subeventId: number | null;
  validFrom: number | null;
  validUntil: number | null;
};

export type SecretGenerator = {
  name: TicketSecretGeneratorName;
  /** Replaced secrets go onto the revocation list (pretix `use_revocation_list`). */
  useRevocationList: boolean;
  /**
   * pretix's contract: with `forceInvalidate` a secret different from `current`; otherwise
   * `current` unchanged when what it encodes did not change.
   */
  generate(facts: TicketSecretFacts, current: string | null, forceInvalidate: boolean): Promise<string>;
};

export function generatorName(settings: Record<string, unknown>): TicketSecretGeneratorName {
  return settings[GENERATOR_SETTING] === SIG1 ? SIG1 : "random";
}

/** The deployment secret, or null when it is not configured (too short counts as not configured). */
export function deploymentSecret(env: Env): string | null {
  const s = (env.TICKET_SIGNING_KEY_SECRET ?? "").trim();
  if (s.length === 0) return null;
  if (s.length < MIN_SECRET_LENGTH) {
    log.error("configuration: TICKET_SIGNING_KEY_SECRET is too short; signed ticket secrets are off", {
      min_length: MIN_SECRET_LENGTH,
    });
    return null;
  }
  return s;
}

export const NO_DEPLOYMENT_SECRET =
  "Signed ticket secrets need the deployment secret TICKET_SIGNING_KEY_SECRET (at least 32 characters), which is not configured.";

function unavailable(message: string): Failure {
  return new Failure("unavailable", message);
}

/** What the sealed key is bound to: a sealed key opens only for its own event. */
const sealContext = (eventId: number) => `event:${eventId}:${SIG1}`;

/** The event's `pretix_sig1` key, made and stored on first need (one extra round trip, once per event). */
export async function ensureSigningKey(
  env: Env,
  db: DB,
  eventId: number,
  now: number,
  known?: SigningKeyRow | null,
): Promise<SigningKeyRow> {
  const found = known ?? (await findSigningKey(db, eventId, SIG1));
  if (found) return found;
  const secret = deploymentSecret(env);
  if (!secret) throw unavailable(NO_DEPLOYMENT_SECRET);
  const made = await generateSigningKey();
  return storeSigningKey(
    db,
    eventId,
    SIG1,
    { publicKey: made.validKey, privateKeySealed: await seal(secret, made.privateKey, sealContext(eventId)) },
    now,
  );
}

/**
 * After an event was created as a copy: when the copied settings choose signed secrets, the new
 * event gets its own key at once (keys are never copied), so that its valid_keys are there
 * before its first sale. Without a deployment secret nothing is made (selling will say why).
 */
export async function prepareSigningKeyOfCopy(
  env: Env,
  db: DB,
  organizerId: number,
  eventId: number,
  now: number,
): Promise<void> {
  if (!deploymentSecret(env)) return;
  const { event } = await storedSettingsLevels(db, organizerId, eventId);
  if (generatorName(event) === SIG1) await ensureSigningKey(env, db, eventId, now);
}

type Signer = { sign: CryptoKey; verify: CryptoKey };
/** Imported keys per isolate, by event and sealed text (a new key, or a new deployment secret, opens anew). */
const signers = new Map<string, Promise<Signer>>();

async function openSigner(env: Env, eventId: number, key: SigningKeyRow): Promise<Signer> {
  const secret = deploymentSecret(env);
  if (!secret) throw unavailable(NO_DEPLOYMENT_SECRET);
  const pkcs8 = await unseal(secret, key.privateKeySealed, sealContext(eventId));
  if (!pkcs8)
    throw unavailable("The event's ticket signing key cannot be opened with the configured TICKET_SIGNING_KEY_SECRET.");
  return { sign: await importSigningKey(pkcs8), verify: (await importVerifyKey(key.publicKey))! };
}

function signerOf(env: Env, eventId: number, key: SigningKeyRow): Promise<Signer> {
  const cacheKey = `${eventId}:${key.privateKeySealed}`;
  let s = signers.get(cacheKey);
  if (!s) {
    if (signers.size > 1000) signers.clear();
    s = openSigner(env, eventId, key);
    signers.set(cacheKey, s);
    s.catch(() => signers.delete(cacheKey));
  }
  return s;
}

const random: SecretGenerator = {
  name: "random",
  useRevocationList: false,
  generate: async (_facts, current, forceInvalidate) => (current && !forceInvalidate ? current : newTicketSecret()),
};

/** The payload a ticket's secret carries. */
export function sig1Ticket(facts: TicketSecretFacts, seed: string): Sig1Ticket {
  return {
    seed,
    item: facts.itemId,
    variation: facts.variationId ?? 0,
    subevent: facts.subeventId ?? 0,
    validFromUnixTime: unixSeconds(facts.validFrom),
    validUntilUnixTime: unixSeconds(facts.validUntil),
  };
}

function sig1(env: Env, eventId: number, key: SigningKeyRow): SecretGenerator {
  return {
    name: SIG1,
    useRevocationList: true,
    async generate(facts, current, forceInvalidate) {
      const signer = await signerOf(env, eventId, key);
      const want = sig1Ticket(facts, "");
      if (current && !forceInvalidate) {
        const t = await verifySig1(signer.verify, current);
        if (
          t &&
          t.item === want.item &&
          t.variation === want.variation &&
          t.subevent === want.subevent &&
          t.validFromUnixTime === want.validFromUnixTime &&
          t.validUntilUnixTime === want.validUntilUnixTime
        ) {
          return current;
        }
      }
      return signSig1(signer.sign, { ...want, seed: newSeed() });
    },
  };
}

/**
 * The event's generator. `key`: the event's `pretix_sig1` key when the caller read it already
 * (undefined: read here; null: known to be missing); for `pretix_sig1` a missing key is made.
 */
export async function secretGenerator(
  env: Env,
  db: DB,
  eventId: number,
  settings: Record<string, unknown>,
  now: number,
  key?: SigningKeyRow | null,
): Promise<SecretGenerator> {
  if (generatorName(settings) !== SIG1) return random;
  return sig1(env, eventId, await ensureSigningKey(env, db, eventId, now, key));
}

/** A ticket's secret after a change, as pretix's `assign_ticket_secret` decides it. */
export type AssignedSecret = { secret: string; changed: boolean; revoke: boolean };

/**
 * pretix `assign_ticket_secret`: a new secret when `forceInvalidate`, or when the generator keeps
 * a revocation list and `forceIfRevocationList` (a canceled ticket), or when what the secret
 * encodes changed; the old secret is revoked when it changed and the generator keeps a list.
 */
export async function assignSecret(
  gen: SecretGenerator,
  facts: TicketSecretFacts,
  current: string,
  opts: { forceInvalidate?: boolean; forceIfRevocationList?: boolean } = {},
): Promise<AssignedSecret> {
  const force = (opts.forceInvalidate ?? false) || (gen.useRevocationList && (opts.forceIfRevocationList ?? false));
  const secret = await gen.generate(facts, current, force);
  const changed = secret !== current;
  return { secret, changed, revoke: changed && gen.useRevocationList };
}
