/**
 * The IAM actions the pipeline grants outside its table: the queues, the bucket, the models, the
 * functions and the services it calls. permissions.ts holds the table's and re-exports these, so
 * every action the pipeline grants is found from one module. Internal: not part of the jsii API.
 */

// ---- The queues ---------------------------------------------------------------------------------------

/** On the turn queue, for whoever dispatches a turn: the inbound functions, the redrive. */
export const QUEUE_SEND_ACTIONS = ['sqs:SendMessage'] as const;

/**
 * On the turn queue, for the orchestrator's event source mapping, which polls with the function's
 * role: what Lambda's SQS poller calls (the managed AWSLambdaSQSQueueExecutionRole's actions).
 */
export const QUEUE_CONSUME_ACTIONS = ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'] as const;

/** On the dead-letter queue: the redrive reads, holds and removes records. */
export const DEAD_LETTER_ACTIONS = ['sqs:ReceiveMessage', 'sqs:ChangeMessageVisibility', 'sqs:DeleteMessage'] as const;

// ---- Everything else ----------------------------------------------------------------------------------

/** The commands of the package's command-line tool find the table and queues in the stack's outputs. */
export const STACK_OUTPUT_READ_ACTIONS = ['cloudformation:DescribeStacks'] as const;

/** On the media prefix, for the orchestrator: store a downloaded attachment, read it back for the agent. */
export const MEDIA_STORE_ACTIONS = ['s3:PutObject', 's3:GetObject'] as const;

/** On the media prefix, for the operator plane and the privacy commands: open an attachment, erase a customer's. */
export const MEDIA_ERASE_ACTIONS = ['s3:GetObject', 's3:DeleteObject'] as const;

/** On the media prefix, for the operator plane: store the attachment an operator sends before it is sent. */
export const MEDIA_ATTACH_ACTIONS = ['s3:PutObject'] as const;

/** On the media bucket, limited to the media prefix: find a customer's objects (export, erasure). */
export const MEDIA_LIST_ACTIONS = ['s3:ListBucket'] as const;

/** On the bucket's customer managed key, through S3: encrypt what is stored, decrypt what is read. */
export const MEDIA_KEY_ACTIONS = ['kms:Decrypt', 'kms:GenerateDataKey'] as const;

/**
 * With `media.transcription`, the orchestrator starts one transcription job per voice note. The
 * Service Authorization Reference lists no resource type for StartTranscriptionJob, so it is
 * granted on `*`; Transcribe then reads the voice note with the caller's permissions (`s3:GetObject`
 * on the media prefix and `kms:Decrypt` through S3, which the orchestrator has already).
 */
export const TRANSCRIPTION_START_ACTIONS = ['transcribe:StartTranscriptionJob'] as const;

/** On the orchestrator's own jobs (`transcription-job/voice-*`): read a job's state, delete it (and the transcript it holds) once read. */
export const TRANSCRIPTION_JOB_ACTIONS = ['transcribe:GetTranscriptionJob', 'transcribe:DeleteTranscriptionJob'] as const;

/** The idle sweep's and the erasure's: list the jobs by name (no resource type, so `*`; names, statuses and dates, never a transcript)… */
export const TRANSCRIPTION_LIST_ACTIONS = ['transcribe:ListTranscriptionJobs'] as const;

/** …and delete them, on the pipeline's own jobs (`transcription-job/voice-*`) only. */
export const TRANSCRIPTION_DELETE_ACTIONS = ['transcribe:DeleteTranscriptionJob'] as const;

/** Bedrock agent: the Converse API is authorised as InvokeModel. */
export const BEDROCK_INVOKE_ACTIONS = ['bedrock:InvokeModel'] as const;

/** Bedrock guardrail named in the Converse call's `guardrailConfig`. */
export const BEDROCK_GUARDRAIL_ACTIONS = ['bedrock:ApplyGuardrail'] as const;

/** Consumer-supplied tool functions (`AgentTool.fromFunction`). */
export const AGENT_TOOL_INVOKE_ACTIONS = ['lambda:InvokeFunction'] as const;
/** Bedrock knowledge base the agent searches (Bedrock Agent Runtime `Retrieve`). */
export const BEDROCK_RETRIEVE_ACTIONS = ['bedrock:Retrieve'] as const;

/** Consumer-supplied agent function. */
export const AGENT_FUNCTION_INVOKE_ACTIONS = ['lambda:InvokeFunction'] as const;

/** The evaluator function, which the operator function invokes to play an evaluation run an admin started. */
export const EVALUATION_START_ACTIONS = ['lambda:InvokeFunction'] as const;

/** Consumer-supplied CRM function (`CrmTarget.fromFunction`). */
export const CRM_FUNCTION_INVOKE_ACTIONS = ['lambda:InvokeFunction'] as const;

/** Writing to the function's own log group (instead of the managed AWSLambdaBasicExecutionRole). */
export const LOG_WRITE_ACTIONS = ['logs:CreateLogStream', 'logs:PutLogEvents'] as const;

/** End User Messaging: sending from the linked numbers. */
export const END_USER_MESSAGING_SEND_ACTIONS = ['social-messaging:SendWhatsAppMessage'] as const;

/**
 * End User Messaging: a customer's attachment from the number that received it. The service writes
 * the object into the media bucket as the caller, with the `s3:PutObject` (and the key's
 * `kms:GenerateDataKey` through S3) the orchestrator already has on the media prefix.
 */
export const END_USER_MESSAGING_MEDIA_ACTIONS = ['social-messaging:GetWhatsAppMessageMedia'] as const;

/** End User Messaging: uploading an attachment an operator sends, from the media bucket, to the linked numbers. */
export const END_USER_MESSAGING_MEDIA_UPLOAD_ACTIONS = ['social-messaging:PostWhatsAppMessageMedia'] as const;

/** End User Messaging: reading the linked account's templates (the list has no body, so each one is read). */
export const END_USER_MESSAGING_TEMPLATE_READ_ACTIONS = ['social-messaging:ListWhatsAppMessageTemplates', 'social-messaging:GetWhatsAppMessageTemplate'] as const;
