// The whole pipeline on this machine, with no AWS account: `npm start` opens a chat as a WhatsApp
// customer; `npm start -- send "text"` sends one message and prints the answer.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { parseArgs } from 'node:util';
import { PIPELINE_DEFAULTS, WHATSAPP_CHANNEL_KINDS } from '../lib/contract';
import { RuntimeConfigError } from '../lambda/composition/read-settings';
import type { IdleSweepReport } from '../lambda/core/application/close-idle-conversations';
import { DEFAULT_RETENTION, expiresAt } from '../lambda/core/domain/privacy';
import { CompactLogFormatter } from '../local/runtime/compact-log-formatter';
import type { ConversationSnapshot } from '../local/runtime/conversation-inspector';
import { CustomerChat, startCustomerChatServer } from '../local/runtime/customer-chat';
import { bundleStaleAssets } from '../local/runtime/local-assets';
import { startLocalPipeline, type LocalChannel, type LocalPipeline } from '../local/runtime/local-pipeline';
import { LOCAL_ENV } from '../local/runtime/local-plan';
import { watchAncestors } from '../local/runtime/parent-watch';
import { replyAuthor } from '../local/runtime/reply-author';
import type { ReceivedCrmRequest } from '../local/fake-crm/fake-crm';
import type { KnowledgeDocument } from '../local/fake-bedrock/fake-knowledge-base';
import type { InvocationReport } from '../local/runtime/sqs-event-source';
import { LocalServerError } from '../local/servers/local-servers';
import { UsageError } from './cli-command';

const REPOSITORY_ROOT = path.resolve(__dirname, '..');
const DEMO_CUSTOMER = '5511912345678';
const DEMO_ADMIN = '5511900000001';
/** As the deployed schedule runs the handoff sweeper. */
const SWEEP_EVERY_MS = 60_000;
const CUSTOMER_PATTERN = /^\d{8,15}$/;
/** Deployed, the CRM sync worker runs every minute; locally sooner, so a send shows while you chat. */
const CRM_SYNC_EVERY_MS = 5_000;
/** Deployed, conversations close 24 hours after their last message and the sweep runs every 15 minutes; locally within minutes, to watch one close. */
const LOCAL_IDLE_TIMEOUT_SECONDS = 120;
const IDLE_SWEEP_EVERY_MS = 10_000;

const USAGE = `Usage:
  npm start [-- options]                     chat with the pipeline as a WhatsApp customer
  npm start -- send "text" [options]         send one message, print the answer and exit

Options:
  --from <phone>                 the customer (digits only; default ${DEMO_CUSTOMER})
  --admin <phone>                the demo admin of the operator console (default ${DEMO_ADMIN});
                                 chat as this phone (/from) and send "login" for a fresh link
  --channel <channel>            cloud-api (signed POSTs to the webhook URL, the default) or
                                 end-user-messaging (SNS-shaped events, replies through a fake
                                 AWS End User Messaging Social endpoint)
  --port <port>                  the webhook's port (default: a free port)
  --chat-port <port>             the port of the customer chat in the browser (default: a free port)
  --visibility-timeout <seconds> the queue's visibility timeout, i.e. the delay before a failed
                                 turn is retried (default ${PIPELINE_DEFAULTS.queueVisibilityTimeoutSeconds}, as deployed)
  --no-crm                       no CRM sync (default: on, against a fake CRM on 127.0.0.1; each
                                 send shows as a [crm] line)
  --idle-timeout <seconds>       close a conversation the agent serves this long after its last
                                 message (default ${LOCAL_IDLE_TIMEOUT_SECONDS}; deployed: conversationIdleTimeout,
                                 24 hours); each close shows as an [idle] line
  --knowledge <file.json>        a fake Bedrock knowledge base on 127.0.0.1 with these documents
                                 ([{"location": "s3://…", "text": "…", "metadata": {…}}]), which a
                                 Bedrock agent with ${LOCAL_ENV.bedrockKnowledgeBaseId} searches instead of Bedrock's
  -h, --help

Environment:
  POWERTOOLS_LOG_LEVEL           the functions' log level (default WARN)
  ${LOCAL_ENV.agentBackend}=bedrock ${LOCAL_ENV.bedrockModelId}=<id>  answer with Amazon Bedrock (your own AWS credentials)
  ${LOCAL_ENV.bedrockKnowledgeBaseId}=<id>   the Bedrock agent searches this knowledge base (the fake one with --knowledge)
  ${LOCAL_ENV.agentBackend}=stages ${LOCAL_ENV.agentStages}=<json>  named agents, as AgentBackend.stages() names them, e.g.
                                 '{"entry":"qualificacao","agents":{"qualificacao":{"${LOCAL_ENV.agentBackend}":"scripted"},
                                 "cadastro":{"${LOCAL_ENV.agentBackend}":"scripted"}}}'
  AWS_ENDPOINT_URL_DYNAMODB, AWS_ENDPOINT_URL_SQS  reuse a running DynamoDB Local / SQS emulator`;

/** When the fake reports each status of a reply, after accepting it. */
const LOCAL_RECEIPTS = [
  { status: 'sent', afterMs: 300 },
  { status: 'delivered', afterMs: 900 },
  { status: 'read', afterMs: 2_500 },
] as const;

const CHAT_HELP = `Type a message and press Enter to send it as the customer (or chat on the browser page
above: both are the same conversation). Commands:
  /from <phone>   switch customer        /state   the customer's session and history
  /fail [code]    WhatsApp reports the last reply failed (default 131047, the 24-hour window closed)
  /help           this help              /quit    stop everything and exit (also Ctrl-C, Ctrl-D)
Replies are reported sent, delivered and read as WhatsApp would; a [receipt] line shows each.
Keywords the scripted agent understands: #humano (handoff), #fim (close), #dado chave=valor,
#fora <serviço> (out-of-portfolio demand), #cadastro nome=… (also email, documento, empresa,
cidade), #segmento <segmento>, #intencao <intenção>, #passar <etapa> (with stages: hand over to
that agent), #falha (the agent fails every time: after the last retry the customer gets the
fallback text and the conversation goes to people).
A conversation the agent serves closes once nobody wrote for the idle timeout (--idle-timeout,
default ${LOCAL_IDLE_TIMEOUT_SECONDS} s): an [idle] line shows it, /state its retention; the next message opens a new
one whose agent is shown the closed one's last messages.`;

interface CliOptions {
  readonly command: 'chat' | 'send';
  readonly text?: string;
  readonly customer: string;
  readonly admin: string;
  readonly channel: LocalChannel;
  readonly webhookPort?: number;
  readonly chatPort?: number;
  readonly visibilityTimeoutSeconds?: number;
  readonly crm: boolean;
  readonly idleTimeoutSeconds: number;
  readonly knowledgeDocuments?: readonly KnowledgeDocument[];
}

function parseCli(argv: string[]): CliOptions | 'help' {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'from': { type: 'string' },
      'admin': { type: 'string' },
      'channel': { type: 'string' },
      'port': { type: 'string' },
      'chat-port': { type: 'string' },
      'visibility-timeout': { type: 'string' },
      'no-crm': { type: 'boolean' },
      'idle-timeout': { type: 'string' },
      'knowledge': { type: 'string' },
      'help': { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return 'help';
  const [command = 'chat', ...rest] = positionals;
  if (command !== 'chat' && command !== 'send') throw new UsageError(`Unknown command "${command}".`);
  if (command === 'send' && rest.length === 0) throw new UsageError('send needs the message text: npm start -- send "Oi!"');
  const customer = values.from ?? DEMO_CUSTOMER;
  if (!CUSTOMER_PATTERN.test(customer)) throw new UsageError(`--from must be a WhatsApp id of 8 to 15 digits, got "${customer}".`);
  const admin = values.admin ?? DEMO_ADMIN;
  if (!CUSTOMER_PATTERN.test(admin)) throw new UsageError(`--admin must be a WhatsApp phone of 8 to 15 digits, got "${admin}".`);
  const channels: readonly string[] = Object.values(WHATSAPP_CHANNEL_KINDS);
  const channel = values.channel ?? WHATSAPP_CHANNEL_KINDS.cloudApi;
  if (!channels.includes(channel)) throw new UsageError(`--channel must be one of ${channels.join(', ')}, got "${channel}".`);
  return {
    command,
    channel: channel as LocalChannel,
    text: rest.join(' '),
    customer,
    admin,
    webhookPort: optionalInteger(values.port, '--port'),
    chatPort: optionalInteger(values['chat-port'], '--chat-port'),
    visibilityTimeoutSeconds: optionalInteger(values['visibility-timeout'], '--visibility-timeout'),
    crm: values['no-crm'] !== true,
    idleTimeoutSeconds: optionalInteger(values['idle-timeout'], '--idle-timeout') ?? LOCAL_IDLE_TIMEOUT_SECONDS,
    ...(values.knowledge !== undefined && { knowledgeDocuments: knowledgeDocumentsIn(values.knowledge) }),
  };
}

/** The documents of `--knowledge`: a JSON list of `{location, text, metadata?}`. */
function knowledgeDocumentsIn(file: string): readonly KnowledgeDocument[] {
  let documents: unknown;
  try {
    documents = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`--knowledge ${file} could not be read as JSON: ${(error as Error).message}`);
  }
  const valid = (document: unknown) => typeof document === 'object' && document !== null && typeof (document as KnowledgeDocument).location === 'string' && typeof (document as KnowledgeDocument).text === 'string';
  if (!Array.isArray(documents) || !documents.every(valid)) throw new UsageError(`--knowledge ${file} must hold a list of {"location": "s3://…", "text": "…"} documents.`);
  return documents as KnowledgeDocument[];
}

function optionalInteger(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`${name} must be a whole number, got "${value}".`);
  return Number(value);
}

/** Prints lines above the prompt without mangling what the user is typing. */
class ChatOutput {
  private prompt?: Interface;

  attach(prompt: Interface): void {
    this.prompt = prompt;
  }

  line(text: string): void {
    if (this.prompt && process.stdout.isTTY) {
      process.stdout.write('\r\x1b[2K');
      process.stdout.write(`${text}\n`);
      this.prompt.prompt(true);
    } else {
      process.stdout.write(`${text}\n`);
    }
  }
}

const clock = () => new Date().toTimeString().slice(0, 8);

function describeState({ session, history }: ConversationSnapshot): string {
  if (!session) return '  (no session yet)';
  const data = Object.keys(session.qualificationData).length > 0 ? ` · data ${JSON.stringify(session.qualificationData)}` : '';
  // The TTL the close wrote on the session and its messages (the local run keeps the default retention).
  const kept = session.closedAt ? ` · closed ${session.closedAt.slice(0, 19)}Z, kept until ${new Date(expiresAt(session.closedAt, DEFAULT_RETENTION.conversationSeconds) * 1000).toISOString().slice(0, 10)}` : '';
  return `  session ${session.sessionId.slice(0, 8)} · ${session.state} · ${history.length} messages${data}${kept}`;
}

function describeIdleSweep(report: IdleSweepReport, idleTimeoutSeconds: number): string {
  return `${clock()} [idle] closed ${report.closed} conversation(s) quiet for ${idleTimeoutSeconds} s; /state shows the close and its retention`;
}

function describeHistory({ history }: ConversationSnapshot): string[] {
  return history.map((message) => `  ${message.timestamp.slice(11, 19)} ${message.role.padEnd(9)} ${message.text}${message.deliveryStatus && message.deliveryStatus !== 'sent' ? ` [${message.deliveryStatus}]` : ''}`);
}

const FAILURE_WORDS: Record<InvocationReport['outcome'], string> = { deleted: 'succeeded', retained: 'failed', threw: 'crashed', timed_out: 'timed out' };

function describeFailure(report: InvocationReport, maxReceiveCount: number, visibilitySeconds: number): string {
  const { phone_number: customer } = JSON.parse(report.record.body) as { phone_number?: string };
  const why = report.error instanceof Error ? `: ${report.error.message}` : ' (the orchestrator reported it in batchItemFailures)';
  const next =
    report.receiveCount >= maxReceiveCount
      ? `it was received ${report.receiveCount} times, so SQS moves it to the dead-letter queue`
      : `SQS delivers it again after the ${visibilitySeconds} s visibility timeout`;
  return `${clock()} ! turn for ${customer} ${FAILURE_WORDS[report.outcome]} on receive ${report.receiveCount} of ${maxReceiveCount}${why}; ${next}`;
}

async function main(): Promise<number> {
  // The SDK's Node 20 end-of-support notice is noise in an interactive tool.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  let options: CliOptions | 'help';
  try {
    options = parseCli(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  if (options === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  // Watched from here, so the processes above are recorded before anything starts.
  const launcherGone = new Promise<number>((resolve) => watchAncestors(resolve));

  const out = new ChatOutput();
  const maxReceiveCount = PIPELINE_DEFAULTS.maxReceiveCount;
  const visibilitySeconds = options.visibilityTimeoutSeconds ?? PIPELINE_DEFAULTS.queueVisibilityTimeoutSeconds;
  const reports: InvocationReport[] = [];
  const reportListeners = new Set<(report: InvocationReport) => void>();

  const assets = await bundleStaleAssets(REPOSITORY_ROOT);
  if (assets.rebuilt.length > 0) {
    const [first, ...others] = assets.rebuilt;
    const why = `${first.name}: ${first.reason}${others.length > 0 ? `; and ${others.length} more` : ''}`;
    process.stdout.write(`Bundled assets/ first (${why}) in ${(assets.elapsedMs / 1000).toFixed(1)} s.\n`);
  }
  process.stdout.write('Starting DynamoDB Local, the SQS emulator and the pipeline…\n');
  const starting = startLocalPipeline({
    dynamoDbEndpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB,
    sqsEndpoint: process.env.AWS_ENDPOINT_URL_SQS,
    channel: options.channel,
    ports: { webhook: options.webhookPort },
    queue: { visibilityTimeoutSeconds: visibilitySeconds },
    adminPhoneNumbers: [options.admin],
    sweepEveryMs: SWEEP_EVERY_MS,
    crmSync: options.crm ? { everyMs: CRM_SYNC_EVERY_MS, onRequest: (received) => out.line(describeCrmRequest(received)) } : undefined,
    idleSweep: {
      idleTimeoutMs: options.idleTimeoutSeconds * 1000,
      everyMs: IDLE_SWEEP_EVERY_MS,
      onReport: (report) => {
        if (report.closed > 0) out.line(describeIdleSweep(report, options.idleTimeoutSeconds));
      },
    },
    logFormatter: new CompactLogFormatter(),
    knowledgeDocuments: options.knowledgeDocuments,
    onInvocation: (report) => {
      reports.push(report);
      reportListeners.forEach((listener) => listener(report));
      if (report.outcome !== 'deleted') out.line(describeFailure(report, maxReceiveCount, visibilitySeconds));
    },
  });

  // Every way out stops what was started, once: the command's end, Ctrl-C, SIGTERM, a crash.
  let stopped = false;
  let stopping: Promise<number> | undefined;
  const shutdown = (code: number): Promise<number> =>
    (stopping ??= starting
      .then(
        (pipeline) =>
          pipeline.stop().then(
            () => code,
            (error: unknown) => {
              process.stderr.write(`Stopping was not clean: ${String(error)}\n`);
              return code === 0 ? 1 : code;
            },
          ),
        // A pipeline that failed to start has already stopped what it had started.
        () => code,
      )
      .finally(() => (stopped = true)));
  const exitAfterShutdown = (code: number) => void shutdown(code).then((exitCode) => process.exit(exitCode));
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]] as const) process.once(signal, () => exitAfterShutdown(code));
  // npm (or whatever started this) was killed: nobody signals this process, so it stops itself.
  void launcherGone.then((pid) => {
    process.stderr.write(`\nThe process that started the local pipeline (PID ${pid}) ended: stopping everything it started.\n`);
    exitAfterShutdown(129);
  });
  // Output piped into a reader that went away (e.g. `| head`): nobody is listening, stop quietly.
  process.stdout.on('error', () => exitAfterShutdown(0));
  process.on('uncaughtException', (error) => {
    process.stderr.write(`${error.stack ?? String(error)}\n`);
    exitAfterShutdown(1);
  });

  const pipeline = await starting;
  // Last resort if the process dies some other way: no child outlives it.
  process.once('exit', () => {
    if (!stopped) pipeline.childPids.forEach((pid) => killQuietly(pid));
  });
  const firstReportFor = (messageId: string) =>
    new Promise<InvocationReport>((resolve) => {
      const matches = (report: InvocationReport) => (JSON.parse(report.record.body) as { message_id?: string }).message_id === messageId;
      const earlier = reports.find(matches);
      if (earlier) return resolve(earlier);
      const listener = (report: InvocationReport) => {
        if (!matches(report)) return;
        reportListeners.delete(listener);
        resolve(report);
      };
      reportListeners.add(listener);
    });

  try {
    const code =
      options.command === 'send' ? await sendOnce(pipeline, options.customer, options.text!, firstReportFor) : await chat(pipeline, options, out, reports);
    return await shutdown(code);
  } catch (error) {
    await shutdown(1);
    throw error;
  }
}

/** Sends one message and waits for what became of it: answered, failed, or routed to a human. */
async function sendOnce(pipeline: LocalPipeline, customer: string, text: string, firstReportFor: (messageId: string) => Promise<InvocationReport>): Promise<number> {
  const sentBefore = pipeline.fakeWhatsApp.sent().length;
  const { status, messageId } = await pipeline.sendCustomerMessage(customer, text);
  process.stdout.write(`${clock()} customer ${customer}: ${text}\n`);
  if (status !== 200) {
    process.stderr.write(`The webhook answered ${status}.\n`);
    return 1;
  }
  // A message routed to a human inbox is never queued: then the pipeline simply goes idle.
  const outcome = await Promise.race([firstReportFor(messageId), pipeline.waitForIdle(PIPELINE_DEFAULTS.orchestratorTimeoutSeconds * 1000).then(() => undefined)]);
  if (outcome && outcome.outcome !== 'deleted') return 1;
  await pipeline.waitForIdle();
  const replies = pipeline.fakeWhatsApp.sent().slice(sentBefore).filter((message) => message.recipient === customer);
  for (const reply of replies) process.stdout.write(`${clock()} agent → ${customer}: ${reply.text}\n`);
  const snapshot = await pipeline.conversation(customer);
  if (replies.length === 0) process.stdout.write(`(no reply: the session is ${snapshot.session?.state ?? 'missing'})\n`);
  process.stdout.write(`${describeState(snapshot)}\n`);
  return 0;
}

/** The interactive chat: one line per customer message, replies and state as they happen. */
async function chat(pipeline: LocalPipeline, options: CliOptions, out: ChatOutput, reports: InvocationReport[]): Promise<number> {
  const { admin } = options;
  let customer = options.customer;
  const loginLink = await pipeline.loginLink(admin);
  const customerChat = new CustomerChat(pipeline);
  const chatPage = await startCustomerChatServer(customerChat, { defaultCustomer: customer, port: options.chatPort });
  process.stdout.write(
    [
      '',
      `Local pipeline ready (DynamoDB Local and SQS emulator PIDs: ${pipeline.childPids.join(', ') || 'reused'})`,
      pipeline.webhookUrl === undefined
        ? `  End User Messaging      events delivered as SNS would; replies through the fake endpoint ${pipeline.endUserMessagingEndpoint}`
        : `  webhook (Function URL)  ${pipeline.webhookUrl}   verify token ${pipeline.verifyToken}`,
      `  DynamoDB Local          ${pipeline.endpoints.dynamoDb}   table ${pipeline.tableName}`,
      `  SQS emulator            ${pipeline.endpoints.sqs}   queue ${pipeline.turnQueueUrl.split('/').pop()}`,
      `  fake WhatsApp API       ${pipeline.fakeWhatsApp.baseUrl}`,
      pipeline.fakeCrm ? `  fake CRM webhook        ${pipeline.fakeCrm.url}   synced every ${CRM_SYNC_EVERY_MS / 1000} s (--no-crm to turn off)` : '  CRM sync               off',
      `  customer chat (browser) ${chatPage.url}?from=${customer}   a phone: your messages and the replies with their delivery status`,
      `  operator console        ${pipeline.consoleUrl}   API under /api/`,
      `  login link for admin ${admin} (one use, 10 minutes): ${loginLink}`,
      `    POST its token to /api/session; for another link chat as the admin (/from ${admin}) and send "login".`,
      '',
      CHAT_HELP,
      '',
    ].join('\n') + '\n',
  );

  const prompt = createInterface({ input: process.stdin, output: process.stdout, terminal: process.stdin.isTTY });
  out.attach(prompt);
  const setPrompt = () => prompt.setPrompt(`${customer}> `);
  setPrompt();

  // WhatsApp's delivery statuses, as a phone that reads at once would cause them.
  pipeline.fakeWhatsApp.reportAutomatically(LOCAL_RECEIPTS);
  const stopReceipts = pipeline.fakeWhatsApp.onStatus((reply) => out.line(`${clock()} [receipt] ${reply.status} → ${reply.recipient}: ${reply.text.slice(0, 40)}`));

  // The fake Graph API records every reply; show each as it arrives, who wrote it (the agent, or an
  // operator by name), and the session after it, one reply after the other.
  let shown = pipeline.fakeWhatsApp.sent().length;
  let printing = Promise.resolve();
  const watcher = setInterval(() => {
    const sent = pipeline.fakeWhatsApp.sent();
    for (const reply of sent.slice(shown)) {
      printing = printing.then(async () => {
        try {
          const snapshot = await pipeline.conversation(reply.recipient);
          const author = await replyAuthor(reply, snapshot.history, (phone) => pipeline.operatorName(phone));
          out.line(`${clock()} ${author} → ${reply.recipient}: ${reply.text}`);
          out.line(describeState(snapshot));
        } catch (error) {
          out.line(`${clock()} → ${reply.recipient}: ${reply.text}\n  (could not read the session: ${String(error)})`);
        }
      });
    }
    shown = sent.length;
  }, 100);

  const commands: Record<string, (argument: string) => Promise<void> | void> = {
    help: () => out.line(CHAT_HELP),
    from: (argument) => {
      if (!CUSTOMER_PATTERN.test(argument)) return out.line('  /from needs a WhatsApp id of 8 to 15 digits, e.g. /from 5521987654321');
      customer = argument;
      setPrompt();
      out.line(`  now writing as ${customer}`);
    },
    state: async () => {
      const snapshot = await pipeline.conversation(customer);
      out.line([describeState(snapshot), ...describeHistory(snapshot), `  turns processed so far: ${reports.length}`].join('\n'));
    },
    fail: async (argument) => {
      const last = pipeline.fakeWhatsApp.sent().filter((reply) => reply.recipient === customer).at(-1);
      if (last === undefined) return out.line(`  nothing was sent to ${customer} yet`);
      await pipeline.fakeWhatsApp.reportStatus(last.providerMessageId, 'failed', { errorCode: argument === '' ? 131047 : Number(argument) });
    },
  };

  prompt.prompt();
  return await new Promise<number>((resolve) => {
    const finish = () => {
      clearInterval(watcher);
      stopReceipts();
      void chatPage.close().finally(() => resolve(0));
    };
    prompt.on('SIGINT', () => prompt.close());
    prompt.on('close', finish);
    prompt.on('line', (line) => {
      const text = line.trim();
      if (text === '') return prompt.prompt();
      const command = /^\/(\w+)\s*(.*)$/.exec(text);
      if (command) {
        if (command[1] === 'quit' || command[1] === 'exit') return prompt.close();
        const run = commands[command[1]];
        if (!run) return out.line(`  unknown command /${command[1]}; try /help`);
        void Promise.resolve(run(command[2].trim())).catch((error: unknown) => out.line(`  ${String(error)}`));
        return prompt.prompt();
      }
      const from = customer;
      customerChat.send(from, text).then(
        ({ status }) => out.line(`${clock()} customer ${from}: ${text}${status === 200 ? '' : `   (webhook answered ${status})`}`),
        (error: unknown) => out.line(`  could not post to the webhook: ${String(error)}`),
      );
    });
  });
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    // Already gone.
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof LocalServerError || error instanceof RuntimeConfigError) process.stderr.write(`\n${error.message}\n`);
    else process.stderr.write(`\n${(error as Error)?.stack ?? String(error)}\n`);
    process.exit(1);
  },
);

/** One line per request the fake CRM got: what it did, for which customer, at which stage, with what the agent learned. */
function describeCrmRequest({ request, handling }: ReceivedCrmRequest): string {
  const deal = request.dealId ?? 'new deal';
  const { customerId, ...registration } = request.contact;
  const learned = Object.entries({ agent: request.deal.agent, segment: request.deal.segment, intent: request.deal.intent, ...registration })
    .filter(([, value]) => value !== undefined)
    .map(([field, value]) => `, ${field} ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join('');
  return `[crm] ${handling} ${deal} for ${request.customerId}: stage ${String(request.deal.stage)}${learned}, revision ${request.revision.slice(0, 8)}`;
}
