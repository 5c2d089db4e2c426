import { Stack } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { SettingsDocument } from '../contract';

/** The props a setting of the document is made of, for a refusal that names what to change; a simple setting is its prop's namesake. */
const PROPS_OF_SETTING: Partial<Record<keyof SettingsDocument, string>> = {
  retention: 'conversationRetention or demandRetention',
  endUserMessagingInbound: 'channel',
  whatsApp: 'channel or messageTemplates.businessAccountId',
  agent: 'agentBackend',
  operatorAccess: 'adminPhoneNumbers or timeZone',
  handoffs: 'handoffTexts, handoffRenotifyAfter, customerRenotifyAfter or messageTemplates.handoffNoticeTemplate',
  media: 'media',
  idleSweep: 'conversationIdleTimeout',
  reengagement: 'messageTemplates.reengagement',
};

/**
 * The settings document of function `fn` as written into its asset at synth: every token resolved
 * (a `Lazy` that produces a plain value gives it), or refused naming the prop when it stays a
 * reference CloudFormation resolves only at deploy time. Names, ARNs and URLs travel in the
 * environment instead, where such references belong.
 */
export function plainSettingsDocument(scope: Construct, fn: string, document: object): object {
  const resolved = Stack.of(scope).resolve(document) as Record<string, unknown>;
  for (const [setting, value] of Object.entries(resolved)) {
    const reference = referenceIn(value, setting);
    if (reference === undefined) continue;
    const prop = PROPS_OF_SETTING[setting as keyof SettingsDocument] ?? setting;
    throw new Error(
      `AgentPipeline at '${scope.node.path}': ${prop} holds a value CloudFormation resolves only at deploy time (${reference.path} is ${JSON.stringify(reference.value)}), ` +
        `but the ${fn} function's settings are written into its asset at synth. Give a plain value (a Lazy must produce one when the app synthesizes).`,
    );
  }
  return resolved;
}

/** The first CloudFormation intrinsic (`Ref`, `Fn::…`) in a resolved value, and where it is. */
function referenceIn(value: unknown, path: string): { readonly path: string; readonly value: unknown } | undefined {
  if (Array.isArray(value)) return value.map((item, index) => referenceIn(item, `${path}[${index}]`)).find((found) => found !== undefined);
  if (typeof value !== 'object' || value === null) return undefined;
  if (Object.keys(value).some((key) => key === 'Ref' || key.startsWith('Fn::'))) return { path, value };
  return Object.entries(value).map(([key, item]) => referenceIn(item, `${path}.${key}`)).find((found) => found !== undefined);
}
