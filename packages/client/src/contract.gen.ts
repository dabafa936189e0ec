// Generated from the OpenAPI document (src/contract/openapi.ts) by
// packages/client/scripts/generate-types.ts with openapi-typescript. Do not edit; run
// `npm run generate -w @media-jobs/client` after changing the contract.
export interface paths {
    "/v1/jobs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List jobs, newest first */
        get: operations["listJobs"];
        put?: never;
        /**
         * Create a job
         * @description Accepts either dialect (HTTP `{type, input, options?}` or client-library `{type, params}`) and either spelling of `type`; returns at once. Counts against the plan's hourly quota. At most 64 KiB.
         */
        post: operations["createJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Retrieve a job
         * @description Every `url` in `result` is freshly signed on each call and valid for one hour. With `Prefer: wait=N` the request is held until the job is final or N seconds (at most 60) pass, and counts once against the read limit.
         */
        get: operations["getJob"];
        put?: never;
        post?: never;
        /**
         * Delete a job, its webhook deliveries and its outputs
         * @description A queued or processing job is cancelled first (as by `/cancel`), then deleted. Afterwards the job answers 404 and its download links stop working.
         */
        delete: operations["deleteJob"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs/{id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Stream a job's progress and end
         * @description Server-sent events: `progress` with the job (as in `getJob`) each time its status or progress changes, then one `end` with the final job, and the stream closes. A connection lasts at most 60 s; counts once against the read limit.
         */
        get: operations["streamJobEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a queued or processing job
         * @description On a finished job nothing changes and the answer is `{success: false, jobId, status}`.
         */
        post: operations["cancelJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs/{id}/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A job's webhook deliveries, with every attempt */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs/{id}/webhooks/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a finished job's webhook again
         * @description A new delivery (new `webhook-id`, same retry schedule) to the job's `webhookUrl`. 400 when the job has no `webhookUrl` or has not finished.
         */
        post: operations["redeliverWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/destinations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The organization's destinations */
        get: operations["listDestinations"];
        put?: never;
        /**
         * Register a destination bucket
         * @description An S3-compatible bucket (AWS S3, R2 through its S3 API with region `auto`, MinIO…) that jobs created with `store` copy their outputs to. Created only after a check: a small object written and deleted under `.media-jobs-check/`; when that fails the answer is 400 naming the field, the `problem` (`unreachable`, `bucket_missing`, `forbidden`, `error`) and the bucket's status and S3 code. The secret access key is stored encrypted and never returned (docs/destinations.md).
         */
        post: operations["createDestination"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/destinations/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A destination */
        get: operations["getDestination"];
        put?: never;
        post?: never;
        /**
         * Delete a destination
         * @description Jobs already completed keep what was copied; a store still pending to it fails (`the destination was deleted`).
         */
        delete: operations["deleteDestination"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/destinations/{id}/check": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Check a destination now
         * @description Writes and deletes a small object; `ok: false` says which step failed and why, with the bucket's status and S3 error code.
         */
        post: operations["checkDestination"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/uploads": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start a direct upload
         * @description Declares a file and returns where to PUT its bytes: a presigned R2 URL in production, or this Worker's own signed route when R2 credentials are not configured. Use the upload as a job's input with `upload:upl_…`. Unused uploads are removed 24 h after creation or their last use by a job.
         */
        post: operations["createUpload"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/uploads/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Retrieve an upload
         * @description `status` turns `uploaded` once R2 holds exactly the declared size.
         */
        get: operations["getUpload"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/uploads/{id}/content": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Send an upload's bytes (the Worker's own upload target)
         * @description The `target.url` of an upload when R2 credentials are not configured; no API key, the `token` is the authority. Send `target.headers`: `Content-Type` the upload's declared `contentType` (the service keeps the declared type whatever this header says; `application/octet-stream` is taken too) and `Content-Length` equal to the declared size; the body is streamed into R2.
         */
        put: operations["putUploadContent"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/uploads/tus": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a resumable upload (tus creation, creation-with-upload)
         * @description A tus 1.0.0 creation: the file's size in `Upload-Length`, its name and media type in `Upload-Metadata` (`filename`, `filetype`; base64 values). Authenticated with the API key or a browser upload token (`ut_…`). The upload's URL (`Location`) ends in its `upl_…` id, the id a job's `upload:upl_…` input names once it is complete. Bytes may come with the creation (`Content-Type: application/offset+octet-stream`). Counts against the plan's uploads per hour and unfinished uploads at once.
         */
        post: operations["tusCreate"];
        delete?: never;
        /**
         * tus discovery (and CORS preflight)
         * @description What this tus 1.0.0 server supports. No credentials; also the browser's CORS preflight for every tus request.
         */
        options: operations["tusOptions"];
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/uploads/tus/tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a browser upload token
         * @description A short-lived token a backend hands to a browser, which sends it as `Authorization: Bearer ut_…` on tus requests instead of the API key. It creates uploads for the key's organization and mode, at most `maxUploads` of them (403 `forbidden` past it) and none larger than `maxBytes` (413), and touches only the uploads it created. With `uploadId`, a token that finishes that resumable upload (after the page's first token expired) and creates none.
         */
        post: operations["createUploadToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/uploads/tus/upl_{key}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * PATCH, DELETE or HEAD for clients that can only POST (X-HTTP-Method-Override)
         * @description tus core: `X-HTTP-Method-Override: PATCH` (or `DELETE`, `HEAD`) makes this POST that request, with its headers and answers.
         */
        post: operations["tusOverride"];
        /**
         * Terminate a resumable upload (tus termination)
         * @description Its R2 parts are aborted and its bytes removed; later requests get 410.
         */
        delete: operations["tusTerminate"];
        /**
         * tus discovery on an upload's URL (and CORS preflight)
         * @description As OPTIONS /v1/uploads/tus: a browser's preflight before each PATCH, HEAD or DELETE.
         */
        options: operations["tusUploadOptions"];
        /**
         * A resumable upload's offset (tus core)
         * @description Where to resume: the bytes received and kept so far.
         */
        head: operations["tusHead"];
        /**
         * Send bytes of a resumable upload (tus core, checksum)
         * @description The bytes from `Upload-Offset`, which must be the offset the upload has reached (409 otherwise). Any size: the service sends R2 parts of 5 MiB and keeps the rest until the next PATCH; a body cut off midway keeps what arrived (unless it carried `Upload-Checksum`). One PATCH at a time per upload (423 meanwhile). The PATCH that brings the last byte completes the upload. Keep each PATCH under the platform's request size (100 MB).
         */
        patch: operations["tusPatch"];
        trace?: never;
    };
    "/v1/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This organization's plan, limits and current use, for the key's mode
         * @description The plan's limits on jobs, uploads and what one job may ask for (`limits.media`), the jobs created in the sliding hour, the jobs processing and queued now, and the uploads created in the hour and unfinished now. Live and test keys count apart.
         */
        get: operations["getUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/files/{token}/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Download an output (signed link)
         * @description The links in job results; no API key. Supports `Range` (RFC 9110 §14). A link to a file in a folder (an HLS stream's playlist, a storyboard's WebVTT) is signed for the folder: `name` may be any file of it, so the relative URIs inside resolve under the same token. Any origin may read (`Access-Control-Allow-Origin: *`).
         */
        get: operations["downloadFile"];
        put?: never;
        post?: never;
        delete?: never;
        /**
         * CORS preflight for a download from another origin
         * @description Lets a player on any site send `Range` with its GET.
         */
        options: operations["downloadFilePreflight"];
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Reachability of D1, R2, the queues and the processor, with the version */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This document */
        get: operations["getOpenApiDocument"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workflows": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List workflows, newest first */
        get: operations["listWorkflows"];
        put?: never;
        /**
         * Create a workflow: one input, named steps, each a job
         * @description `url` (or `input`) and `steps`, or `template` with `overrides`. A step reads the workflow's input, or with `use` the output of another step, and starts when that step completes. At most 20 steps, each counted against the plan's hourly quota as a job: all are admitted or none (429). A failed or cancelled step fails the workflow and cancels every step not ended. With `store`, once the workflow completed the steps' outputs are copied to one of your destinations, and the webhook waits for the copies. At most 64 KiB.
         */
        post: operations["createWorkflow"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workflows/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Retrieve a workflow with each step's job
         * @description Each step is its job as `getJob` shows it (signed links valid one hour), with `use` and `output`. With `Prefer: wait=N` the request is held until the workflow ends or N seconds (at most 60) pass.
         */
        get: operations["getWorkflow"];
        put?: never;
        post?: never;
        /**
         * Delete an ended workflow, its step jobs and their outputs
         * @description Only once it has ended (409 `workflow_not_ended` otherwise: cancel it first).
         */
        delete: operations["deleteWorkflow"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workflows/{id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Stream a workflow's steps and end
         * @description Server-sent events: `workflow` with the whole workflow first, then `step` (`{workflow, step, …the step}`) each time a step's status or progress changes, then `end` with the ended workflow, and the stream closes. A connection lasts at most 60 s; the key is re-checked every 2 s.
         */
        get: operations["streamWorkflowEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workflows/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a workflow: every step not ended
         * @description On a workflow already ended (or failed) nothing changes and the answer is `{success: false, workflowId, status}`.
         */
        post: operations["cancelWorkflow"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/templates": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List templates, newest first */
        get: operations["listTemplates"];
        put?: never;
        /**
         * Create a workflow template
         * @description A name and `steps` as in a workflow, checked now and again at each use (after `overrides`).
         */
        post: operations["createTemplate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/templates/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Retrieve a template */
        get: operations["getTemplate"];
        put?: never;
        post?: never;
        /** Delete a template (workflows made from it keep their steps) */
        delete: operations["deleteTemplate"];
        options?: never;
        head?: never;
        /** Rename a template or replace its steps */
        patch: operations["updateTemplate"];
        trace?: never;
    };
}
export interface webhooks {
    jobFinished: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A job ended (completed, failed or cancelled)
         * @description POSTed to the job's `webhookUrl` with the job in the client-library dialect. Any 2xx within 15 s is success; 410 stops the delivery; anything else is retried with backoff (about 0, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h), then dead-lettered. Verify a signature over the raw body before trusting it (docs/webhooks.md).
         */
        post: operations["jobFinishedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    jobPlayable: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A job's stream became playable before the job completed (videoAdaptive)
         * @description POSTed once to the job's `webhookUrl` as `{type: "job.playable", data: <the job in the client-library dialect>}`, the job read at the attempt (`playableAt` and `playable.url` set; usually still `processing`). Signed and retried as `jobFinished`; the job's end is a delivery of its own (docs/webhooks.md).
         */
        post: operations["jobPlayableWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    workflowEnded: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A workflow ended (every step ended)
         * @description POSTed once to the workflow's `webhookUrl`, signed and retried as a job's (the same headers). Its steps send no webhook of their own. A workflow completed with `store` is reported once every step's copy ended: `store.status` and each step's `store.objects` say where each output is.
         */
        post: operations["workflowEndedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        CompressVideoParams: {
            url: string;
            /**
             * @description Default: `"medium"`.
             * @enum {string}
             */
            quality?: "low" | "medium" | "high";
            maxWidth?: number;
            maxHeight?: number;
            targetBitrate?: string;
            /**
             * @description Video codec. `av1` (SVT-AV1) is kept within the plan's largest AV1 side: `maxWidth` and `maxHeight` at most it, and it when left out (docs/limits.md, "Media limits per plan"); WebM holds only `vp9` and `av1`. Default: `"h264"`.
             * @enum {string}
             */
            codec?: "h264" | "h265" | "vp9" | "av1";
            /** @description Default: `false`. */
            stripAudio?: boolean;
            /** @enum {string} */
            format?: "mp4" | "webm";
            /** @description An image or a line of text laid over the output (docs/job-types.md, Watermarks). */
            watermark?: {
                /** @description A line of text (at most 200 characters), drawn in white with a dark shadow. Give `text` or `url`. */
                text?: string & (unknown & unknown);
                /**
                 * Format: uri
                 * @description A PNG, JPEG, WebP or AVIF image (at most 10 MiB), such as a logo with transparency. Give `text` or `url`.
                 */
                url?: string;
                /**
                 * @description Where the overlay sits. Default: `bottom-right`. Default: `"bottom-right"`.
                 * @enum {string}
                 */
                position?: "top-left" | "top" | "top-right" | "left" | "center" | "right" | "bottom-left" | "bottom" | "bottom-right";
                /** @description Distance from the edges the overlay is near, as a fraction of the output's shorter side. Default: 0.02. Default: `0.02`. */
                margin?: number;
                /** @description 0 (invisible) to 1 (opaque). Default: 1. Default: `1`. */
                opacity?: number;
                /** @description An image's width, or the text's height, as a fraction of the output's width or height. Default: 0.15 for an image, 0.05 for text. The overlay is made smaller when it would not fit inside the margins. */
                size?: number;
            };
        };
        CompressImageParams: {
            url: string;
            /** @description Default: `80`. */
            quality?: number;
            maxWidth?: number;
            maxHeight?: number;
            /**
             * @description How the image meets the box of both `maxWidth` and `maxHeight`: `inside` (the default) scales down to fit in it, never up; `cover` fills it and crops the overflow, `contain` fits in it and pads, `fill` stretches to it: those three give exactly that box, scaling up when needed.
             * @enum {string}
             */
            fit?: "cover" | "contain" | "inside" | "fill";
            /**
             * @description What a `cover` crop keeps (a side, a corner, or `attention`/`entropy`: the most salient or most detailed region), or where `contain` places the image. Default: `center`.
             * @enum {string}
             */
            position?: "center" | "top" | "right" | "bottom" | "left" | "top-left" | "top-right" | "bottom-left" | "bottom-right" | "attention" | "entropy";
            /** @description Colour of `contain`'s padding. Default: transparent where the format has alpha, white in JPEG. */
            background?: string;
            /** @enum {string} */
            format?: "jpg" | "png" | "webp" | "avif";
            /** @description Default: `false`. */
            stripMetadata?: boolean;
            /** @description An image or a line of text laid over the output (docs/job-types.md, Watermarks). */
            watermark?: {
                /** @description A line of text (at most 200 characters), drawn in white with a dark shadow. Give `text` or `url`. */
                text?: string & (unknown & unknown);
                /**
                 * Format: uri
                 * @description A PNG, JPEG, WebP or AVIF image (at most 10 MiB), such as a logo with transparency. Give `text` or `url`.
                 */
                url?: string;
                /**
                 * @description Where the overlay sits. Default: `bottom-right`. Default: `"bottom-right"`.
                 * @enum {string}
                 */
                position?: "top-left" | "top" | "top-right" | "left" | "center" | "right" | "bottom-left" | "bottom" | "bottom-right";
                /** @description Distance from the edges the overlay is near, as a fraction of the output's shorter side. Default: 0.02. Default: `0.02`. */
                margin?: number;
                /** @description 0 (invisible) to 1 (opaque). Default: 1. Default: `1`. */
                opacity?: number;
                /** @description An image's width, or the text's height, as a fraction of the output's width or height. Default: 0.15 for an image, 0.05 for text. The overlay is made smaller when it would not fit inside the margins. */
                size?: number;
            };
        };
        CompressPdfParams: {
            url: string;
            /**
             * @description Default: `"medium"`.
             * @enum {string}
             */
            quality?: "low" | "medium" | "high";
            /** @description Default: `false`. */
            removeMetadata?: boolean;
        };
        VideoThumbnailParams: {
            url: string;
            /** @description Default: `"auto"`. */
            timestamp?: number | "auto";
            width?: number;
            height?: number;
            /**
             * @description How the frame meets the box of both `width` and `height`: `cover` (the default) fills it and crops the overflow, `contain` fits in it and pads, `fill` stretches to it, `inside` fits in it (the frame may come out smaller than the box). Frames scale up as well as down.
             * @enum {string}
             */
            fit?: "cover" | "contain" | "inside" | "fill";
            /**
             * @description What a `cover` crop keeps (a side, a corner, or `attention`/`entropy`: the most salient or most detailed region), or where `contain` places the frame. Default: `center`.
             * @enum {string}
             */
            position?: "center" | "top" | "right" | "bottom" | "left" | "top-left" | "top-right" | "bottom-left" | "bottom-right" | "attention" | "entropy";
            /** @description Colour of `contain`'s padding. Default: transparent in PNG and WebP, white in JPEG. */
            background?: string;
            /**
             * @description Default: `"jpg"`.
             * @enum {string}
             */
            format?: "jpg" | "png" | "webp";
            /** @description Default: `85`. */
            quality?: number;
            /** @description An image or a line of text laid over the output (docs/job-types.md, Watermarks). */
            watermark?: {
                /** @description A line of text (at most 200 characters), drawn in white with a dark shadow. Give `text` or `url`. */
                text?: string & (unknown & unknown);
                /**
                 * Format: uri
                 * @description A PNG, JPEG, WebP or AVIF image (at most 10 MiB), such as a logo with transparency. Give `text` or `url`.
                 */
                url?: string;
                /**
                 * @description Where the overlay sits. Default: `bottom-right`. Default: `"bottom-right"`.
                 * @enum {string}
                 */
                position?: "top-left" | "top" | "top-right" | "left" | "center" | "right" | "bottom-left" | "bottom" | "bottom-right";
                /** @description Distance from the edges the overlay is near, as a fraction of the output's shorter side. Default: 0.02. Default: `0.02`. */
                margin?: number;
                /** @description 0 (invisible) to 1 (opaque). Default: 1. Default: `1`. */
                opacity?: number;
                /** @description An image's width, or the text's height, as a fraction of the output's width or height. Default: 0.15 for an image, 0.05 for text. The overlay is made smaller when it would not fit inside the margins. */
                size?: number;
            };
        };
        ExtractAudioParams: {
            url: string;
            /**
             * @description Default: `"mp3"`.
             * @enum {string}
             */
            format?: "mp3" | "aac" | "opus" | "flac" | "wav";
            /**
             * @description Default: `"medium"`.
             * @enum {string}
             */
            quality?: "low" | "medium" | "high";
            /** @description Default: `false`. */
            normalize?: boolean | {
                /** @description Default: `-16`. */
                integratedLufs?: number;
                /** @description Default: `-1.5`. */
                truePeakDb?: number;
                /** @description Default: `11`. */
                lra?: number;
            };
        };
        AudioWaveformParams: {
            url: string;
            /** @description Width of the PNG in pixels; the whole length of the audio spans it. Default: `1800`. */
            width?: number;
            /** @description Height of the PNG in pixels; full scale reaches its top and bottom edges. Default: `280`. */
            height?: number;
            /** @description Colour of the waveform, `#rrggbb`. Default: `"#3b82f6"`. */
            color?: string;
            /** @description Colour behind the waveform, `#rrggbb`, or `"transparent"`. Default: `"transparent"`. */
            backgroundColor?: string | "transparent";
            /** @description Peaks (min/max pairs) a second of audio in the JSON, its resolution for zooming in (peaks.js zooms out from it, never further in). The PNG is drawn from them. Default: `100`. */
            pointsPerSecond?: number;
        };
        VideoExtractionParams: {
            url: string;
            /** @description Default: `{"quality":"medium"}`. */
            audio?: false | {
                /**
                 * @description Default: `"medium"`.
                 * @enum {string}
                 */
                quality?: "low" | "medium" | "high";
            };
            /** @description Default: `false`. */
            frames?: false | ({
                /** @constant */
                mode: "count";
                count: number;
                /**
                 * @description Default: `"jpg"`.
                 * @enum {string}
                 */
                format?: "jpg" | "png" | "webp";
                /** @description Default: `85`. */
                quality?: number;
                width?: number;
                height?: number;
                /**
                 * @description How the frame meets the box of both `width` and `height`: `cover` (the default) fills it and crops the overflow, `contain` fits in it and pads, `fill` stretches to it, `inside` fits in it (the frame may come out smaller than the box). Frames scale up as well as down.
                 * @enum {string}
                 */
                fit?: "cover" | "contain" | "inside" | "fill";
                /**
                 * @description What a `cover` crop keeps (a side, a corner, or `attention`/`entropy`: the most salient or most detailed region), or where `contain` places the frame. Default: `center`.
                 * @enum {string}
                 */
                position?: "center" | "top" | "right" | "bottom" | "left" | "top-left" | "top-right" | "bottom-left" | "bottom-right" | "attention" | "entropy";
                /** @description Colour of `contain`'s padding. Default: transparent in PNG and WebP, white in JPEG. */
                background?: string;
                /** @description Default: `false`. */
                skipBlackFrames?: boolean;
                /** @description An image or a line of text laid over the output (docs/job-types.md, Watermarks). */
                watermark?: {
                    /** @description A line of text (at most 200 characters), drawn in white with a dark shadow. Give `text` or `url`. */
                    text?: string & (unknown & unknown);
                    /**
                     * Format: uri
                     * @description A PNG, JPEG, WebP or AVIF image (at most 10 MiB), such as a logo with transparency. Give `text` or `url`.
                     */
                    url?: string;
                    /**
                     * @description Where the overlay sits. Default: `bottom-right`. Default: `"bottom-right"`.
                     * @enum {string}
                     */
                    position?: "top-left" | "top" | "top-right" | "left" | "center" | "right" | "bottom-left" | "bottom" | "bottom-right";
                    /** @description Distance from the edges the overlay is near, as a fraction of the output's shorter side. Default: 0.02. Default: `0.02`. */
                    margin?: number;
                    /** @description 0 (invisible) to 1 (opaque). Default: 1. Default: `1`. */
                    opacity?: number;
                    /** @description An image's width, or the text's height, as a fraction of the output's width or height. Default: 0.15 for an image, 0.05 for text. The overlay is made smaller when it would not fit inside the margins. */
                    size?: number;
                };
            } | {
                /** @constant */
                mode: "percentage";
                values: number[];
                /**
                 * @description Default: `"jpg"`.
                 * @enum {string}
                 */
                format?: "jpg" | "png" | "webp";
                /** @description Default: `85`. */
                quality?: number;
                width?: number;
                height?: number;
                /**
                 * @description How the frame meets the box of both `width` and `height`: `cover` (the default) fills it and crops the overflow, `contain` fits in it and pads, `fill` stretches to it, `inside` fits in it (the frame may come out smaller than the box). Frames scale up as well as down.
                 * @enum {string}
                 */
                fit?: "cover" | "contain" | "inside" | "fill";
                /**
                 * @description What a `cover` crop keeps (a side, a corner, or `attention`/`entropy`: the most salient or most detailed region), or where `contain` places the frame. Default: `center`.
                 * @enum {string}
                 */
                position?: "center" | "top" | "right" | "bottom" | "left" | "top-left" | "top-right" | "bottom-left" | "bottom-right" | "attention" | "entropy";
                /** @description Colour of `contain`'s padding. Default: transparent in PNG and WebP, white in JPEG. */
                background?: string;
                /** @description Default: `false`. */
                skipBlackFrames?: boolean;
                /** @description An image or a line of text laid over the output (docs/job-types.md, Watermarks). */
                watermark?: {
                    /** @description A line of text (at most 200 characters), drawn in white with a dark shadow. Give `text` or `url`. */
                    text?: string & (unknown & unknown);
                    /**
                     * Format: uri
                     * @description A PNG, JPEG, WebP or AVIF image (at most 10 MiB), such as a logo with transparency. Give `text` or `url`.
                     */
                    url?: string;
                    /**
                     * @description Where the overlay sits. Default: `bottom-right`. Default: `"bottom-right"`.
                     * @enum {string}
                     */
                    position?: "top-left" | "top" | "top-right" | "left" | "center" | "right" | "bottom-left" | "bottom" | "bottom-right";
                    /** @description Distance from the edges the overlay is near, as a fraction of the output's shorter side. Default: 0.02. Default: `0.02`. */
                    margin?: number;
                    /** @description 0 (invisible) to 1 (opaque). Default: 1. Default: `1`. */
                    opacity?: number;
                    /** @description An image's width, or the text's height, as a fraction of the output's width or height. Default: 0.15 for an image, 0.05 for text. The overlay is made smaller when it would not fit inside the margins. */
                    size?: number;
                };
            } | {
                /** @constant */
                mode: "interval";
                every: number;
                /**
                 * @description Default: `"jpg"`.
                 * @enum {string}
                 */
                format?: "jpg" | "png" | "webp";
                /** @description Default: `85`. */
                quality?: number;
                width?: number;
                height?: number;
                /**
                 * @description How the frame meets the box of both `width` and `height`: `cover` (the default) fills it and crops the overflow, `contain` fits in it and pads, `fill` stretches to it, `inside` fits in it (the frame may come out smaller than the box). Frames scale up as well as down.
                 * @enum {string}
                 */
                fit?: "cover" | "contain" | "inside" | "fill";
                /**
                 * @description What a `cover` crop keeps (a side, a corner, or `attention`/`entropy`: the most salient or most detailed region), or where `contain` places the frame. Default: `center`.
                 * @enum {string}
                 */
                position?: "center" | "top" | "right" | "bottom" | "left" | "top-left" | "top-right" | "bottom-left" | "bottom-right" | "attention" | "entropy";
                /** @description Colour of `contain`'s padding. Default: transparent in PNG and WebP, white in JPEG. */
                background?: string;
                /** @description Default: `false`. */
                skipBlackFrames?: boolean;
                /** @description An image or a line of text laid over the output (docs/job-types.md, Watermarks). */
                watermark?: {
                    /** @description A line of text (at most 200 characters), drawn in white with a dark shadow. Give `text` or `url`. */
                    text?: string & (unknown & unknown);
                    /**
                     * Format: uri
                     * @description A PNG, JPEG, WebP or AVIF image (at most 10 MiB), such as a logo with transparency. Give `text` or `url`.
                     */
                    url?: string;
                    /**
                     * @description Where the overlay sits. Default: `bottom-right`. Default: `"bottom-right"`.
                     * @enum {string}
                     */
                    position?: "top-left" | "top" | "top-right" | "left" | "center" | "right" | "bottom-left" | "bottom" | "bottom-right";
                    /** @description Distance from the edges the overlay is near, as a fraction of the output's shorter side. Default: 0.02. Default: `0.02`. */
                    margin?: number;
                    /** @description 0 (invisible) to 1 (opaque). Default: 1. Default: `1`. */
                    opacity?: number;
                    /** @description An image's width, or the text's height, as a fraction of the output's width or height. Default: 0.15 for an image, 0.05 for text. The overlay is made smaller when it would not fit inside the margins. */
                    size?: number;
                };
            } | {
                /** @constant */
                mode: "timestamps";
                values: number[];
                /**
                 * @description Default: `"jpg"`.
                 * @enum {string}
                 */
                format?: "jpg" | "png" | "webp";
                /** @description Default: `85`. */
                quality?: number;
                width?: number;
                height?: number;
                /**
                 * @description How the frame meets the box of both `width` and `height`: `cover` (the default) fills it and crops the overflow, `contain` fits in it and pads, `fill` stretches to it, `inside` fits in it (the frame may come out smaller than the box). Frames scale up as well as down.
                 * @enum {string}
                 */
                fit?: "cover" | "contain" | "inside" | "fill";
                /**
                 * @description What a `cover` crop keeps (a side, a corner, or `attention`/`entropy`: the most salient or most detailed region), or where `contain` places the frame. Default: `center`.
                 * @enum {string}
                 */
                position?: "center" | "top" | "right" | "bottom" | "left" | "top-left" | "top-right" | "bottom-left" | "bottom-right" | "attention" | "entropy";
                /** @description Colour of `contain`'s padding. Default: transparent in PNG and WebP, white in JPEG. */
                background?: string;
                /** @description Default: `false`. */
                skipBlackFrames?: boolean;
                /** @description An image or a line of text laid over the output (docs/job-types.md, Watermarks). */
                watermark?: {
                    /** @description A line of text (at most 200 characters), drawn in white with a dark shadow. Give `text` or `url`. */
                    text?: string & (unknown & unknown);
                    /**
                     * Format: uri
                     * @description A PNG, JPEG, WebP or AVIF image (at most 10 MiB), such as a logo with transparency. Give `text` or `url`.
                     */
                    url?: string;
                    /**
                     * @description Where the overlay sits. Default: `bottom-right`. Default: `"bottom-right"`.
                     * @enum {string}
                     */
                    position?: "top-left" | "top" | "top-right" | "left" | "center" | "right" | "bottom-left" | "bottom" | "bottom-right";
                    /** @description Distance from the edges the overlay is near, as a fraction of the output's shorter side. Default: 0.02. Default: `0.02`. */
                    margin?: number;
                    /** @description 0 (invisible) to 1 (opaque). Default: 1. Default: `1`. */
                    opacity?: number;
                    /** @description An image's width, or the text's height, as a fraction of the output's width or height. Default: 0.15 for an image, 0.05 for text. The overlay is made smaller when it would not fit inside the margins. */
                    size?: number;
                };
            });
        };
        VideoStoryboardParams: {
            url: string;
            /** @description Tiles. Alone: exactly this many, evenly spaced over the video. With `interval`: at most this many. Default: 100 at most. */
            count?: number;
            /** @description Seconds between tiles; a video longer than `count` × `interval` gets `count` tiles evenly spaced instead. Default: 2 when `count` is not given. */
            interval?: number;
            /** @description Width of one tile in pixels; its height keeps the video's aspect ratio. Default: `160`. */
            width?: number;
            /** @description Tiles per row of the sprite (fewer when there are fewer tiles); rows follow from the count. columns × width at most 16383 (the sprite's widest side). Default: `10`. */
            columns?: number;
            /**
             * @description Default: `"jpg"`.
             * @enum {string}
             */
            format?: "jpg" | "webp";
            /** @description Default: `75`. */
            quality?: number;
            /** @description An image or a line of text laid over the output (docs/job-types.md, Watermarks). */
            watermark?: {
                /** @description A line of text (at most 200 characters), drawn in white with a dark shadow. Give `text` or `url`. */
                text?: string & (unknown & unknown);
                /**
                 * Format: uri
                 * @description A PNG, JPEG, WebP or AVIF image (at most 10 MiB), such as a logo with transparency. Give `text` or `url`.
                 */
                url?: string;
                /**
                 * @description Where the overlay sits. Default: `bottom-right`. Default: `"bottom-right"`.
                 * @enum {string}
                 */
                position?: "top-left" | "top" | "top-right" | "left" | "center" | "right" | "bottom-left" | "bottom" | "bottom-right";
                /** @description Distance from the edges the overlay is near, as a fraction of the output's shorter side. Default: 0.02. Default: `0.02`. */
                margin?: number;
                /** @description 0 (invisible) to 1 (opaque). Default: 1. Default: `1`. */
                opacity?: number;
                /** @description An image's width, or the text's height, as a fraction of the output's width or height. Default: 0.15 for an image, 0.05 for text. The overlay is made smaller when it would not fit inside the margins. */
                size?: number;
            };
        };
        VideoPreviewParams: {
            url: string;
            /**
             * @description `webp` (animated, the default), `gif`, or `mp4` (H.264, no audio). Default: `"webp"`.
             * @enum {string}
             */
            format?: "webp" | "gif" | "mp4";
            /** @description Where the preview starts, in seconds. Omit for a span chosen around a third of the video (docs/job-types.md). */
            start?: number;
            /** @description The preview's length in seconds, cut short by the end of the video. Plans allow less: free 10 s, pro 20 s. Default: `5`. */
            duration?: number;
            /** @description Width in pixels, height keeping the aspect ratio (both even); never wider than the video. Plans allow less: free 640, pro 960. Default: `320`. */
            width?: number;
            /** @description Frames per second, never more than the video's own. Plans allow less: free 15, pro 24. Default: `10`. */
            fps?: number;
            /** @description WebP and GIF: play forever (true) or once. An MP4 has no such flag: its player decides. Default: `true`. */
            loop?: boolean;
            /** @description Instead of one span, this many clips of `duration` ÷ `segments` seconds each (at least 1 s), spread evenly over the video and joined, as Cloudinary's preview. Not with `start`. */
            segments?: number;
            /** @description An image or a line of text laid over the output (docs/job-types.md, Watermarks). */
            watermark?: {
                /** @description A line of text (at most 200 characters), drawn in white with a dark shadow. Give `text` or `url`. */
                text?: string & (unknown & unknown);
                /**
                 * Format: uri
                 * @description A PNG, JPEG, WebP or AVIF image (at most 10 MiB), such as a logo with transparency. Give `text` or `url`.
                 */
                url?: string;
                /**
                 * @description Where the overlay sits. Default: `bottom-right`. Default: `"bottom-right"`.
                 * @enum {string}
                 */
                position?: "top-left" | "top" | "top-right" | "left" | "center" | "right" | "bottom-left" | "bottom" | "bottom-right";
                /** @description Distance from the edges the overlay is near, as a fraction of the output's shorter side. Default: 0.02. Default: `0.02`. */
                margin?: number;
                /** @description 0 (invisible) to 1 (opaque). Default: 1. Default: `1`. */
                opacity?: number;
                /** @description An image's width, or the text's height, as a fraction of the output's width or height. Default: 0.15 for an image, 0.05 for text. The overlay is made smaller when it would not fit inside the margins. */
                size?: number;
            };
        };
        VideoAdaptiveParams: {
            url: string;
            /** @description The renditions to make, explicitly, each size once; default: the ladder (240, 360, 480, 720, 1080, 1440, 2160) up to the input's size and `maxHeight`, `maxRenditions` of it. Sizes above the input's are left out, never upscaled. */
            renditions?: {
                /** @description The rendition's shorter side in pixels (720 is 1280×720, or 720×1280 for a portrait video); never above the input's own. */
                height: number;
                /** @description Its average video bitrate, such as `2.8M`, from 100K to 20M; default: the ladder's for the nearest rung at or above this size. */
                bitrate?: string;
            }[];
            /** @description The largest rendition's shorter side, for the default ladder. Default: `1080`. */
            maxHeight?: number;
            /** @description How many rungs of the default ladder: the top one, the lowest that fits and the rest spread between. Default: `3`. */
            maxRenditions?: number;
            /**
             * @description Default: `"h264"`.
             * @constant
             */
            codec?: "h264";
            /** @description Seconds per segment; keyframes fall on the same times in every rendition. Default: `6`. */
            segmentDuration?: number;
            /** @description Keep the sound (AAC, 128 kbit/s stereo, in every rendition); false, or an input without sound, makes a stream without. Default: `true`. */
            audio?: boolean;
            /** @description Also write a DASH manifest (stream/manifest.mpd) over the same encodes: the renditions' packets copied into one file each, video and audio apart. Default: `false`. */
            dash?: boolean;
            /** @description Also write a progressive (non-fragmented, faststart) MP4 of the top rendition, for download. Default: `false`. */
            mp4?: boolean;
            /** @description An image or a line of text laid over the output (docs/job-types.md, Watermarks). */
            watermark?: {
                /** @description A line of text (at most 200 characters), drawn in white with a dark shadow. Give `text` or `url`. */
                text?: string & (unknown & unknown);
                /**
                 * Format: uri
                 * @description A PNG, JPEG, WebP or AVIF image (at most 10 MiB), such as a logo with transparency. Give `text` or `url`.
                 */
                url?: string;
                /**
                 * @description Where the overlay sits. Default: `bottom-right`. Default: `"bottom-right"`.
                 * @enum {string}
                 */
                position?: "top-left" | "top" | "top-right" | "left" | "center" | "right" | "bottom-left" | "bottom" | "bottom-right";
                /** @description Distance from the edges the overlay is near, as a fraction of the output's shorter side. Default: 0.02. Default: `0.02`. */
                margin?: number;
                /** @description 0 (invisible) to 1 (opaque). Default: 1. Default: `1`. */
                opacity?: number;
                /** @description An image's width, or the text's height, as a fraction of the output's width or height. Default: 0.15 for an image, 0.05 for text. The overlay is made smaller when it would not fit inside the margins. */
                size?: number;
            };
        };
        VideoClipParams: {
            url: string;
            /** @description Default: `0`. */
            start?: number;
            end?: number;
            /** @description Default: `false`. */
            fast?: boolean;
            /**
             * @description Default: `"high"`.
             * @enum {string}
             */
            quality?: "low" | "medium" | "high";
            /** @description Default: `false`. */
            stripAudio?: boolean;
        };
        VideoConcatParams: {
            url: string;
            append: (string)[];
            width?: number;
            height?: number;
            fps?: number;
            /** @description Default: `0`. */
            crossfade?: number;
            /**
             * @description Default: `"high"`.
             * @enum {string}
             */
            quality?: "low" | "medium" | "high";
        };
        CreateUploadRequest: {
            /** @description The file's name, kept for your reference. */
            filename: string;
            /**
             * @description The media type of the bytes; a job only takes an upload whose type fits it.
             * @enum {string}
             */
            contentType: "image/jpeg" | "image/png" | "image/webp" | "image/gif" | "image/avif" | "image/tiff" | "video/mp4" | "video/quicktime" | "video/webm" | "video/x-matroska" | "video/mpeg" | "video/x-msvideo" | "video/ogg" | "audio/mpeg" | "audio/mp4" | "audio/aac" | "audio/wav" | "audio/x-wav" | "audio/flac" | "audio/ogg" | "audio/webm" | "audio/x-matroska" | "application/pdf";
            /** @description The exact size in bytes; the upload must send exactly this many. */
            size: number;
        };
        CreateUploadTokenRequest: {
            /** @description How many uploads the token may create (default 1). The page holding it can be read by anyone who loads it: give it no more than the page needs. */
            maxUploads?: number;
            /** @description The largest upload the token may create, in bytes (default and at most the plan's largest upload). */
            maxBytes?: number;
            /** @description A token to finish this resumable upload (HEAD and PATCH it, from a page whose token expired); it creates none. Not with `maxUploads` or `maxBytes`. */
            uploadId?: string;
        };
        CreateDestinationRequest: {
            /** @description A name to tell it by. */
            name: string;
            /** @description The S3 API's origin, such as `https://s3.eu-west-1.amazonaws.com` or `https://<account>.r2.cloudflarestorage.com`. */
            endpoint: string;
            bucket: string;
            /** @description The signing region; `auto` for R2. */
            region: string;
            accessKeyId: string;
            /** @description Stored encrypted; never returned. */
            secretAccessKey: string;
            /** @description Path-style URLs (`endpoint/bucket/key`) instead of virtual-hosted ones (`bucket.endpoint/key`). Default: `false`. */
            forcePathStyle?: boolean;
        };
        /** @description The HTTP dialect's `options` of a compress-video job: its params other than `url`. */
        CompressVideoOptions: {
            /**
             * @description Default: `"medium"`.
             * @enum {string}
             */
            quality?: "low" | "medium" | "high";
            maxWidth?: number;
            maxHeight?: number;
            targetBitrate?: string;
            /**
             * @description Video codec. `av1` (SVT-AV1) is kept within the plan's largest AV1 side: `maxWidth` and `maxHeight` at most it, and it when left out (docs/limits.md, "Media limits per plan"); WebM holds only `vp9` and `av1`. Default: `"h264"`.
             * @enum {string}
             */
            codec?: "h264" | "h265" | "vp9" | "av1";
            /** @description Default: `false`. */
            stripAudio?: boolean;
            /** @enum {string} */
            format?: "mp4" | "webm";
            /** @description An image or a line of text laid over the output (docs/job-types.md, Watermarks). */
            watermark?: {
                /** @description A line of text (at most 200 characters), drawn in white with a dark shadow. Give `text` or `url`. */
                text?: string & (unknown & unknown);
                /**
                 * Format: uri
                 * @description A PNG, JPEG, WebP or AVIF image (at most 10 MiB), such as a logo with transparency. Give `text` or `url`.
                 */
                url?: string;
                /**
                 * @description Where the overlay sits. Default: `bottom-right`. Default: `"bottom-right"`.
                 * @enum {string}
                 */
                position?: "top-left" | "top" | "top-right" | "left" | "center" | "right" | "bottom-left" | "bottom" | "bottom-right";
                /** @description Distance from the edges the overlay is near, as a fraction of the output's shorter side. Default: 0.02. Default: `0.02`. */
                margin?: number;
                /** @description 0 (invisible) to 1 (opaque). Default: 1. Default: `1`. */
                opacity?: number;
                /** @description An image's width, or the text's height, as a fraction of the output's width or height. Default: 0.15 for an image, 0.05 for text. The overlay is made smaller when it would not fit inside the margins. */
                size?: number;
            };
        };
        /** @description Creates a compress-video job (HTTP dialect): the input URL in `input`, the other params in `options`. */
        CreateCompressVideoRequest: {
            /**
             * @description Either spelling of the job type.
             * @enum {string}
             */
            type: "compress-video" | "compressVideo";
            /** @description The http(s) URL of the media to process, or `upload:upl_…` for one of your uploads. */
            input: string;
            options?: components["schemas"]["CompressVideoOptions"];
            /** @description 1–10, lower runs first within an organization. Default: `5`. */
            priority?: number;
            /**
             * Format: uri
             * @description Receives a signed POST with the job when it ends.
             */
            webhookUrl?: string;
            /** @description Signs this job's webhooks instead of the organization's secret. */
            webhookSecret?: string;
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata?: {
                [key: string]: string;
            };
            /** @description Copies each output to the organization's own bucket when the job completes. */
            store?: {
                /** @description A destination's id (`dst_…`) of the job's organization. */
                destination: string;
                /** @description Prepended to each output's name in the bucket, such as `videos/2026/`. */
                prefix?: string;
            };
        };
        /** @description Creates a compressVideo job (client-library dialect): every param, `url` included, in `params`. */
        CreateCompressVideoSdkRequest: {
            /**
             * @description Either spelling of the job type.
             * @enum {string}
             */
            type: "compress-video" | "compressVideo";
            params: components["schemas"]["CompressVideoParams"];
            /** @description 1–10, lower runs first within an organization. Default: `5`. */
            priority?: number;
            /**
             * Format: uri
             * @description Receives a signed POST with the job when it ends.
             */
            webhookUrl?: string;
            /** @description Signs this job's webhooks instead of the organization's secret. */
            webhookSecret?: string;
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata?: {
                [key: string]: string;
            };
            /** @description Copies each output to the organization's own bucket when the job completes. */
            store?: {
                /** @description A destination's id (`dst_…`) of the job's organization. */
                destination: string;
                /** @description Prepended to each output's name in the bucket, such as `videos/2026/`. */
                prefix?: string;
            };
        };
        /** @description The HTTP dialect's `options` of a compress-image job: its params other than `url`. */
        CompressImageOptions: {
            /** @description Default: `80`. */
            quality?: number;
            maxWidth?: number;
            maxHeight?: number;
            /**
             * @description How the image meets the box of both `maxWidth` and `maxHeight`: `inside` (the default) scales down to fit in it, never up; `cover` fills it and crops the overflow, `contain` fits in it and pads, `fill` stretches to it: those three give exactly that box, scaling up when needed.
             * @enum {string}
             */
            fit?: "cover" | "contain" | "inside" | "fill";
            /**
             * @description What a `cover` crop keeps (a side, a corner, or `attention`/`entropy`: the most salient or most detailed region), or where `contain` places the image. Default: `center`.
             * @enum {string}
             */
            position?: "center" | "top" | "right" | "bottom" | "left" | "top-left" | "top-right" | "bottom-left" | "bottom-right" | "attention" | "entropy";
            /** @description Colour of `contain`'s padding. Default: transparent where the format has alpha, white in JPEG. */
            background?: string;
            /** @enum {string} */
            format?: "jpg" | "png" | "webp" | "avif";
            /** @description Default: `false`. */
            stripMetadata?: boolean;
            /** @description An image or a line of text laid over the output (docs/job-types.md, Watermarks). */
            watermark?: {
                /** @description A line of text (at most 200 characters), drawn in white with a dark shadow. Give `text` or `url`. */
                text?: string & (unknown & unknown);
                /**
                 * Format: uri
                 * @description A PNG, JPEG, WebP or AVIF image (at most 10 MiB), such as a logo with transparency. Give `text` or `url`.
                 */
                url?: string;
                /**
                 * @description Where the overlay sits. Default: `bottom-right`. Default: `"bottom-right"`.
                 * @enum {string}
                 */
                position?: "top-left" | "top" | "top-right" | "left" | "center" | "right" | "bottom-left" | "bottom" | "bottom-right";
                /** @description Distance from the edges the overlay is near, as a fraction of the output's shorter side. Default: 0.02. Default: `0.02`. */
                margin?: number;
                /** @description 0 (invisible) to 1 (opaque). Default: 1. Default: `1`. */
                opacity?: number;
                /** @description An image's width, or the text's height, as a fraction of the output's width or height. Default: 0.15 for an image, 0.05 for text. The overlay is made smaller when it would not fit inside the margins. */
                size?: number;
            };
        };
        /** @description Creates a compress-image job (HTTP dialect): the input URL in `input`, the other params in `options`. */
        CreateCompressImageRequest: {
            /**
             * @description Either spelling of the job type.
             * @enum {string}
             */
            type: "compress-image" | "compressImage";
            /** @description The http(s) URL of the media to process, or `upload:upl_…` for one of your uploads. */
            input: string;
            options?: components["schemas"]["CompressImageOptions"];
            /** @description 1–10, lower runs first within an organization. Default: `5`. */
            priority?: number;
            /**
             * Format: uri
             * @description Receives a signed POST with the job when it ends.
             */
            webhookUrl?: string;
            /** @description Signs this job's webhooks instead of the organization's secret. */
            webhookSecret?: string;
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata?: {
                [key: string]: string;
            };
            /** @description Copies each output to the organization's own bucket when the job completes. */
            store?: {
                /** @description A destination's id (`dst_…`) of the job's organization. */
                destination: string;
                /** @description Prepended to each output's name in the bucket, such as `videos/2026/`. */
                prefix?: string;
            };
        };
        /** @description Creates a compressImage job (client-library dialect): every param, `url` included, in `params`. */
        CreateCompressImageSdkRequest: {
            /**
             * @description Either spelling of the job type.
             * @enum {string}
             */
            type: "compress-image" | "compressImage";
            params: components["schemas"]["CompressImageParams"];
            /** @description 1–10, lower runs first within an organization. Default: `5`. */
            priority?: number;
            /**
             * Format: uri
             * @description Receives a signed POST with the job when it ends.
             */
            webhookUrl?: string;
            /** @description Signs this job's webhooks instead of the organization's secret. */
            webhookSecret?: string;
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata?: {
                [key: string]: string;
            };
            /** @description Copies each output to the organization's own bucket when the job completes. */
            store?: {
                /** @description A destination's id (`dst_…`) of the job's organization. */
                destination: string;
                /** @description Prepended to each output's name in the bucket, such as `videos/2026/`. */
                prefix?: string;
            };
        };
        /** @description The HTTP dialect's `options` of a compress-pdf job: its params other than `url`. */
        CompressPdfOptions: {
            /**
             * @description Default: `"medium"`.
             * @enum {string}
             */
            quality?: "low" | "medium" | "high";
            /** @description Default: `false`. */
            removeMetadata?: boolean;
        };
        /** @description Creates a compress-pdf job (HTTP dialect): the input URL in `input`, the other params in `options`. */
        CreateCompressPdfRequest: {
            /**
             * @description Either spelling of the job type.
             * @enum {string}
             */
            type: "compress-pdf" | "compressPdf";
            /** @description The http(s) URL of the media to process, or `upload:upl_…` for one of your uploads. */
            input: string;
            options?: components["schemas"]["CompressPdfOptions"];
            /** @description 1–10, lower runs first within an organization. Default: `5`. */
            priority?: number;
            /**
             * Format: uri
             * @description Receives a signed POST with the job when it ends.
             */
            webhookUrl?: string;
            /** @description Signs this job's webhooks instead of the organization's secret. */
            webhookSecret?: string;
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata?: {
                [key: string]: string;
            };
            /** @description Copies each output to the organization's own bucket when the job completes. */
            store?: {
                /** @description A destination's id (`dst_…`) of the job's organization. */
                destination: string;
                /** @description Prepended to each output's name in the bucket, such as `videos/2026/`. */
                prefix?: string;
            };
        };
        /** @description Creates a compressPdf job (client-library dialect): every param, `url` included, in `params`. */
        CreateCompressPdfSdkRequest: {
            /**
             * @description Either spelling of the job type.
             * @enum {string}
             */
            type: "compress-pdf" | "compressPdf";
            params: components["schemas"]["CompressPdfParams"];
            /** @description 1–10, lower runs first within an organization. Default: `5`. */
            priority?: number;
            /**
             * Format: uri
             * @description Receives a signed POST with the job when it ends.
             */
            webhookUrl?: string;
            /** @description Signs this job's webhooks instead of the organization's secret. */
            webhookSecret?: string;
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata?: {
                [key: string]: string;
            };
            /** @description Copies each output to the organization's own bucket when the job completes. */
            store?: {
                /** @description A destination's id (`dst_…`) of the job's organization. */
                destination: string;
                /** @description Prepended to each output's name in the bucket, such as `videos/2026/`. */
                prefix?: string;
            };
        };
        /** @description The HTTP dialect's `options` of a video-thumbnail job: its params other than `url`. */
        VideoThumbnailOptions: {
            /** @description Default: `"auto"`. */
            timestamp?: number | "auto";
            width?: number;
            height?: number;
            /**
             * @description How the frame meets the box of both `width` and `height`: `cover` (the default) fills it and crops the overflow, `contain` fits in it and pads, `fill` stretches to it, `inside` fits in it (the frame may come out smaller than the box). Frames scale up as well as down.
             * @enum {string}
             */
            fit?: "cover" | "contain" | "inside" | "fill";
            /**
             * @description What a `cover` crop keeps (a side, a corner, or `attention`/`entropy`: the most salient or most detailed region), or where `contain` places the frame. Default: `center`.
             * @enum {string}
             */
            position?: "center" | "top" | "right" | "bottom" | "left" | "top-left" | "top-right" | "bottom-left" | "bottom-right" | "attention" | "entropy";
            /** @description Colour of `contain`'s padding. Default: transparent in PNG and WebP, white in JPEG. */
            background?: string;
            /**
             * @description Default: `"jpg"`.
             * @enum {string}
             */
            format?: "jpg" | "png" | "webp";
            /** @description Default: `85`. */
            quality?: number;
            /** @description An image or a line of text laid over the output (docs/job-types.md, Watermarks). */
            watermark?: {
                /** @description A line of text (at most 200 characters), drawn in white with a dark shadow. Give `text` or `url`. */
                text?: string & (unknown & unknown);
                /**
                 * Format: uri
                 * @description A PNG, JPEG, WebP or AVIF image (at most 10 MiB), such as a logo with transparency. Give `text` or `url`.
                 */
                url?: string;
                /**
                 * @description Where the overlay sits. Default: `bottom-right`. Default: `"bottom-right"`.
                 * @enum {string}
                 */
                position?: "top-left" | "top" | "top-right" | "left" | "center" | "right" | "bottom-left" | "bottom" | "bottom-right";
                /** @description Distance from the edges the overlay is near, as a fraction of the output's shorter side. Default: 0.02. Default: `0.02`. */
                margin?: number;
                /** @description 0 (invisible) to 1 (opaque). Default: 1. Default: `1`. */
                opacity?: number;
                /** @description An image's width, or the text's height, as a fraction of the output's width or height. Default: 0.15 for an image, 0.05 for text. The overlay is made smaller when it would not fit inside the margins. */
                size?: number;
            };
        };
        /** @description Creates a video-thumbnail job (HTTP dialect): the input URL in `input`, the other params in `options`. */
        CreateVideoThumbnailRequest: {
            /**
             * @description Either spelling of the job type.
             * @enum {string}
             */
            type: "video-thumbnail" | "videoThumbnail";
            /** @description The http(s) URL of the media to process, or `upload:upl_…` for one of your uploads. */
            input: string;
            options?: components["schemas"]["VideoThumbnailOptions"];
            /** @description 1–10, lower runs first within an organization. Default: `5`. */
            priority?: number;
            /**
             * Format: uri
             * @description Receives a signed POST with the job when it ends.
             */
            webhookUrl?: string;
            /** @description Signs this job's webhooks instead of the organization's secret. */
            webhookSecret?: string;
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata?: {
                [key: string]: string;
            };
            /** @description Copies each output to the organization's own bucket when the job completes. */
            store?: {
                /** @description A destination's id (`dst_…`) of the job's organization. */
                destination: string;
                /** @description Prepended to each output's name in the bucket, such as `videos/2026/`. */
                prefix?: string;
            };
        };
        /** @description Creates a videoThumbnail job (client-library dialect): every param, `url` included, in `params`. */
        CreateVideoThumbnailSdkRequest: {
            /**
             * @description Either spelling of the job type.
             * @enum {string}
             */
            type: "video-thumbnail" | "videoThumbnail";
            params: components["schemas"]["VideoThumbnailParams"];
            /** @description 1–10, lower runs first within an organization. Default: `5`. */
            priority?: number;
            /**
             * Format: uri
             * @description Receives a signed POST with the job when it ends.
             */
            webhookUrl?: string;
            /** @description Signs this job's webhooks instead of the organization's secret. */
            webhookSecret?: string;
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata?: {
                [key: string]: string;
            };
            /** @description Copies each output to the organization's own bucket when the job completes. */
            store?: {
                /** @description A destination's id (`dst_…`) of the job's organization. */
                destination: string;
                /** @description Prepended to each output's name in the bucket, such as `videos/2026/`. */
                prefix?: string;
            };
        };
        /** @description The HTTP dialect's `options` of a extract-audio job: its params other than `url`. */
        ExtractAudioOptions: {
            /**
             * @description Default: `"mp3"`.
             * @enum {string}
             */
            format?: "mp3" | "aac" | "opus" | "flac" | "wav";
            /**
             * @description Default: `"medium"`.
             * @enum {string}
             */
            quality?: "low" | "medium" | "high";
            /** @description Default: `false`. */
            normalize?: boolean | {
                /** @description Default: `-16`. */
                integratedLufs?: number;
                /** @description Default: `-1.5`. */
                truePeakDb?: number;
                /** @description Default: `11`. */
                lra?: number;
            };
        };
        /** @description Creates a extract-audio job (HTTP dialect): the input URL in `input`, the other params in `options`. */
        CreateExtractAudioRequest: {
            /**
             * @description Either spelling of the job type.
             * @enum {string}
             */
            type: "extract-audio" | "extractAudio";
            /** @description The http(s) URL of the media to process, or `upload:upl_…` for one of your uploads. */
            input: string;
            options?: components["schemas"]["ExtractAudioOptions"];
            /** @description 1–10, lower runs first within an organization. Default: `5`. */
            priority?: number;
            /**
             * Format: uri
             * @description Receives a signed POST with the job when it ends.
             */
            webhookUrl?: string;
            /** @description Signs this job's webhooks instead of the organization's secret. */
            webhookSecret?: string;
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata?: {
                [key: string]: string;
            };
            /** @description Copies each output to the organization's own bucket when the job completes. */
            store?: {
                /** @description A destination's id (`dst_…`) of the job's organization. */
                destination: string;
                /** @description Prepended to each output's name in the bucket, such as `videos/2026/`. */
                prefix?: string;
            };
        };
        /** @description Creates a extractAudio job (client-library dialect): every param, `url` included, in `params`. */
        CreateExtractAudioSdkRequest: {
            /**
             * @description Either spelling of the job type.
             * @enum {string}
             */
            type: "extract-audio" | "extractAudio";
            params: components["schemas"]["ExtractAudioParams"];
            /** @description 1–10, lower runs first within an organization. Default: `5`. */
            priority?: number;
            /**
             * Format: uri
             * @description Receives a signed POST with the job when it ends.
             */
            webhookUrl?: string;
            /** @description Signs this job's webhooks instead of the organization's secret. */
            webhookSecret?: string;
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata?: {
                [key: string]: string;
            };
            /** @description Copies each output to the organization's own bucket when the job completes. */
            store?: {
                /** @description A destination's id (`dst_…`) of the job's organization. */
                destination: string;
                /** @description Prepended to each output's name in the bucket, such as `videos/2026/`. */
                prefix?: string;
            };
        };
        /** @description The HTTP dialect's `options` of a audio-waveform job: its params other than `url`. */
        AudioWaveformOptions: {
            /** @description Width of the PNG in pixels; the whole length of the audio spans it. Default: `1800`. */
            width?: number;
            /** @description Height of the PNG in pixels; full scale reaches its top and bottom edges. Default: `280`. */
            height?: number;
            /** @description Colour of the waveform, `#rrggbb`. Default: `"#3b82f6"`. */
            color?: string;
            /** @description Colour behind the waveform, `#rrggbb`, or `"transparent"`. Default: `"transparent"`. */
            backgroundColor?: string | "transparent";
            /** @description Peaks (min/max pairs) a second of audio in the JSON, its resolution for zooming in (peaks.js zooms out from it, never further in). The PNG is drawn from them. Default: `100`. */
            pointsPerSecond?: number;
        };
        /** @description Creates a audio-waveform job (HTTP dialect): the input URL in `input`, the other params in `options`. */
        CreateAudioWaveformRequest: {
            /**
             * @description Either spelling of the job type.
             * @enum {string}
             */
            type: "audio-waveform" | "audioWaveform";
            /** @description The http(s) URL of the media to process, or `upload:upl_…` for one of your uploads. */
            input: string;
            options?: components["schemas"]["AudioWaveformOptions"];
            /** @description 1–10, lower runs first within an organization. Default: `5`. */
            priority?: number;
            /**
             * Format: uri
             * @description Receives a signed POST with the job when it ends.
             */
            webhookUrl?: string;
            /** @description Signs this job's webhooks instead of the organization's secret. */
            webhookSecret?: string;
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata?: {
                [key: string]: string;
            };
            /** @description Copies each output to the organization's own bucket when the job completes. */
            store?: {
                /** @description A destination's id (`dst_…`) of the job's organization. */
                destination: string;
                /** @description Prepended to each output's name in the bucket, such as `videos/2026/`. */
                prefix?: string;
            };
        };
        /** @description Creates a audioWaveform job (client-library dialect): every param, `url` included, in `params`. */
        CreateAudioWaveformSdkRequest: {
            /**
             * @description Either spelling of the job type.
             * @enum {string}
             */
            type: "audio-waveform" | "audioWaveform";
            params: components["schemas"]["AudioWaveformParams"];
            /** @description 1–10, lower runs first within an organization. Default: `5`. */
            priority?: number;
            /**
             * Format: uri
             * @description Receives a signed POST with the job when it ends.
             */
            webhookUrl?: string;
            /** @description Signs this job's webhooks instead of the organization's secret. */
            webhookSecret?: string;
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata?: {
                [key: string]: string;
            };
            /** @description Copies each output to the organization's own bucket when the job completes. */
            store?: {
                /** @description A destination's id (`dst_…`) of the job's organization. */
                destination: string;
                /** @description Prepended to each output's name in the bucket, such as `videos/2026/`. */
                prefix?: string;
            };
        };
        /** @description The HTTP dialect's `options` of a video-extraction job: its params other than `url`. */
        VideoExtractionOptions: {
            /** @description Default: `{"quality":"medium"}`. */
            audio?: false | {
                /**
                 * @description Default: `"medium"`.
                 * @enum {string}
                 */
                quality?: "low" | "medium" | "high";
            };
            /** @description Default: `false`. */
            frames?: false | ({
                /** @constant */
                mode: "count";
                count: number;
                /**
                 * @description Default: `"jpg"`.
                 * @enum {string}
                 */
                format?: "jpg" | "png" | "webp";
                /** @description Default: `85`. */
                quality?: number;
                width?: number;
                height?: number;
                /**
                 * @description How the frame meets the box of both `width` and `height`: `cover` (the default) fills it and crops the overflow, `contain` fits in it and pads, `fill` stretches to it, `inside` fits in it (the frame may come out smaller than the box). Frames scale up as well as down.
                 * @enum {string}
                 */
                fit?: "cover" | "contain" | "inside" | "fill";
                /**
                 * @description What a `cover` crop keeps (a side, a corner, or `attention`/`entropy`: the most salient or most detailed region), or where `contain` places the frame. Default: `center`.
                 * @enum {string}
                 */
                position?: "center" | "top" | "right" | "bottom" | "left" | "top-left" | "top-right" | "bottom-left" | "bottom-right" | "attention" | "entropy";
                /** @description Colour of `contain`'s padding. Default: transparent in PNG and WebP, white in JPEG. */
                background?: string;
                /** @description Default: `false`. */
                skipBlackFrames?: boolean;
                /** @description An image or a line of text laid over the output (docs/job-types.md, Watermarks). */
                watermark?: {
                    /** @description A line of text (at most 200 characters), drawn in white with a dark shadow. Give `text` or `url`. */
                    text?: string & (unknown & unknown);
                    /**
                     * Format: uri
                     * @description A PNG, JPEG, WebP or AVIF image (at most 10 MiB), such as a logo with transparency. Give `text` or `url`.
                     */
                    url?: string;
                    /**
                     * @description Where the overlay sits. Default: `bottom-right`. Default: `"bottom-right"`.
                     * @enum {string}
                     */
                    position?: "top-left" | "top" | "top-right" | "left" | "center" | "right" | "bottom-left" | "bottom" | "bottom-right";
                    /** @description Distance from the edges the overlay is near, as a fraction of the output's shorter side. Default: 0.02. Default: `0.02`. */
                    margin?: number;
                    /** @description 0 (invisible) to 1 (opaque). Default: 1. Default: `1`. */
                    opacity?: number;
                    /** @description An image's width, or the text's height, as a fraction of the output's width or height. Default: 0.15 for an image, 0.05 for text. The overlay is made smaller when it would not fit inside the margins. */
                    size?: number;
                };
            } | {
                /** @constant */
                mode: "percentage";
                values: number[];
                /**
                 * @description Default: `"jpg"`.
                 * @enum {string}
                 */
                format?: "jpg" | "png" | "webp";
                /** @description Default: `85`. */
                quality?: number;
                width?: number;
                height?: number;
                /**
                 * @description How the frame meets the box of both `width` and `height`: `cover` (the default) fills it and crops the overflow, `contain` fits in it and pads, `fill` stretches to it, `inside` fits in it (the frame may come out smaller than the box). Frames scale up as well as down.
                 * @enum {string}
                 */
                fit?: "cover" | "contain" | "inside" | "fill";
                /**
                 * @description What a `cover` crop keeps (a side, a corner, or `attention`/`entropy`: the most salient or most detailed region), or where `contain` places the frame. Default: `center`.
                 * @enum {string}
                 */
                position?: "center" | "top" | "right" | "bottom" | "left" | "top-left" | "top-right" | "bottom-left" | "bottom-right" | "attention" | "entropy";
                /** @description Colour of `contain`'s padding. Default: transparent in PNG and WebP, white in JPEG. */
                background?: string;
                /** @description Default: `false`. */
                skipBlackFrames?: boolean;
                /** @description An image or a line of text laid over the output (docs/job-types.md, Watermarks). */
                watermark?: {
                    /** @description A line of text (at most 200 characters), drawn in white with a dark shadow. Give `text` or `url`. */
                    text?: string & (unknown & unknown);
                    /**
                     * Format: uri
                     * @description A PNG, JPEG, WebP or AVIF image (at most 10 MiB), such as a logo with transparency. Give `text` or `url`.
                     */
                    url?: string;
                    /**
                     * @description Where the overlay sits. Default: `bottom-right`. Default: `"bottom-right"`.
                     * @enum {string}
                     */
                    position?: "top-left" | "top" | "top-right" | "left" | "center" | "right" | "bottom-left" | "bottom" | "bottom-right";
                    /** @description Distance from the edges the overlay is near, as a fraction of the output's shorter side. Default: 0.02. Default: `0.02`. */
                    margin?: number;
                    /** @description 0 (invisible) to 1 (opaque). Default: 1. Default: `1`. */
                    opacity?: number;
                    /** @description An image's width, or the text's height, as a fraction of the output's width or height. Default: 0.15 for an image, 0.05 for text. The overlay is made smaller when it would not fit inside the margins. */
                    size?: number;
                };
            } | {
                /** @constant */
                mode: "interval";
                every: number;
                /**
                 * @description Default: `"jpg"`.
                 * @enum {string}
                 */
                format?: "jpg" | "png" | "webp";
                /** @description Default: `85`. */
                quality?: number;
                width?: number;
                height?: number;
                /**
                 * @description How the frame meets the box of both `width` and `height`: `cover` (the default) fills it and crops the overflow, `contain` fits in it and pads, `fill` stretches to it, `inside` fits in it (the frame may come out smaller than the box). Frames scale up as well as down.
                 * @enum {string}
                 */
                fit?: "cover" | "contain" | "inside" | "fill";
                /**
                 * @description What a `cover` crop keeps (a side, a corner, or `attention`/`entropy`: the most salient or most detailed region), or where `contain` places the frame. Default: `center`.
                 * @enum {string}
                 */
                position?: "center" | "top" | "right" | "bottom" | "left" | "top-left" | "top-right" | "bottom-left" | "bottom-right" | "attention" | "entropy";
                /** @description Colour of `contain`'s padding. Default: transparent in PNG and WebP, white in JPEG. */
                background?: string;
                /** @description Default: `false`. */
                skipBlackFrames?: boolean;
                /** @description An image or a line of text laid over the output (docs/job-types.md, Watermarks). */
                watermark?: {
                    /** @description A line of text (at most 200 characters), drawn in white with a dark shadow. Give `text` or `url`. */
                    text?: string & (unknown & unknown);
                    /**
                     * Format: uri
                     * @description A PNG, JPEG, WebP or AVIF image (at most 10 MiB), such as a logo with transparency. Give `text` or `url`.
                     */
                    url?: string;
                    /**
                     * @description Where the overlay sits. Default: `bottom-right`. Default: `"bottom-right"`.
                     * @enum {string}
                     */
                    position?: "top-left" | "top" | "top-right" | "left" | "center" | "right" | "bottom-left" | "bottom" | "bottom-right";
                    /** @description Distance from the edges the overlay is near, as a fraction of the output's shorter side. Default: 0.02. Default: `0.02`. */
                    margin?: number;
                    /** @description 0 (invisible) to 1 (opaque). Default: 1. Default: `1`. */
                    opacity?: number;
                    /** @description An image's width, or the text's height, as a fraction of the output's width or height. Default: 0.15 for an image, 0.05 for text. The overlay is made smaller when it would not fit inside the margins. */
                    size?: number;
                };
            } | {
                /** @constant */
                mode: "timestamps";
                values: number[];
                /**
                 * @description Default: `"jpg"`.
                 * @enum {string}
                 */
                format?: "jpg" | "png" | "webp";
                /** @description Default: `85`. */
                quality?: number;
                width?: number;
                height?: number;
                /**
                 * @description How the frame meets the box of both `width` and `height`: `cover` (the default) fills it and crops the overflow, `contain` fits in it and pads, `fill` stretches to it, `inside` fits in it (the frame may come out smaller than the box). Frames scale up as well as down.
                 * @enum {string}
                 */
                fit?: "cover" | "contain" | "inside" | "fill";
                /**
                 * @description What a `cover` crop keeps (a side, a corner, or `attention`/`entropy`: the most salient or most detailed region), or where `contain` places the frame. Default: `center`.
                 * @enum {string}
                 */
                position?: "center" | "top" | "right" | "bottom" | "left" | "top-left" | "top-right" | "bottom-left" | "bottom-right" | "attention" | "entropy";
                /** @description Colour of `contain`'s padding. Default: transparent in PNG and WebP, white in JPEG. */
                background?: string;
                /** @description Default: `false`. */
                skipBlackFrames?: boolean;
                /** @description An image or a line of text laid over the output (docs/job-types.md, Watermarks). */
                watermark?: {
                    /** @description A line of text (at most 200 characters), drawn in white with a dark shadow. Give `text` or `url`. */
                    text?: string & (unknown & unknown);
                    /**
                     * Format: uri
                     * @description A PNG, JPEG, WebP or AVIF image (at most 10 MiB), such as a logo with transparency. Give `text` or `url`.
                     */
                    url?: string;
                    /**
                     * @description Where the overlay sits. Default: `bottom-right`. Default: `"bottom-right"`.
                     * @enum {string}
                     */
                    position?: "top-left" | "top" | "top-right" | "left" | "center" | "right" | "bottom-left" | "bottom" | "bottom-right";
                    /** @description Distance from the edges the overlay is near, as a fraction of the output's shorter side. Default: 0.02. Default: `0.02`. */
                    margin?: number;
                    /** @description 0 (invisible) to 1 (opaque). Default: 1. Default: `1`. */
                    opacity?: number;
                    /** @description An image's width, or the text's height, as a fraction of the output's width or height. Default: 0.15 for an image, 0.05 for text. The overlay is made smaller when it would not fit inside the margins. */
                    size?: number;
                };
            });
        };
        /** @description Creates a video-extraction job (HTTP dialect): the input URL in `input`, the other params in `options`. */
        CreateVideoExtractionRequest: {
            /**
             * @description Either spelling of the job type.
             * @enum {string}
             */
            type: "video-extraction" | "videoExtraction";
            /** @description The http(s) URL of the media to process, or `upload:upl_…` for one of your uploads. */
            input: string;
            options?: components["schemas"]["VideoExtractionOptions"];
            /** @description 1–10, lower runs first within an organization. Default: `5`. */
            priority?: number;
            /**
             * Format: uri
             * @description Receives a signed POST with the job when it ends.
             */
            webhookUrl?: string;
            /** @description Signs this job's webhooks instead of the organization's secret. */
            webhookSecret?: string;
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata?: {
                [key: string]: string;
            };
            /** @description Copies each output to the organization's own bucket when the job completes. */
            store?: {
                /** @description A destination's id (`dst_…`) of the job's organization. */
                destination: string;
                /** @description Prepended to each output's name in the bucket, such as `videos/2026/`. */
                prefix?: string;
            };
        };
        /** @description Creates a videoExtraction job (client-library dialect): every param, `url` included, in `params`. */
        CreateVideoExtractionSdkRequest: {
            /**
             * @description Either spelling of the job type.
             * @enum {string}
             */
            type: "video-extraction" | "videoExtraction";
            params: components["schemas"]["VideoExtractionParams"];
            /** @description 1–10, lower runs first within an organization. Default: `5`. */
            priority?: number;
            /**
             * Format: uri
             * @description Receives a signed POST with the job when it ends.
             */
            webhookUrl?: string;
            /** @description Signs this job's webhooks instead of the organization's secret. */
            webhookSecret?: string;
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata?: {
                [key: string]: string;
            };
            /** @description Copies each output to the organization's own bucket when the job completes. */
            store?: {
                /** @description A destination's id (`dst_…`) of the job's organization. */
                destination: string;
                /** @description Prepended to each output's name in the bucket, such as `videos/2026/`. */
                prefix?: string;
            };
        };
        /** @description The HTTP dialect's `options` of a video-storyboard job: its params other than `url`. */
        VideoStoryboardOptions: {
            /** @description Tiles. Alone: exactly this many, evenly spaced over the video. With `interval`: at most this many. Default: 100 at most. */
            count?: number;
            /** @description Seconds between tiles; a video longer than `count` × `interval` gets `count` tiles evenly spaced instead. Default: 2 when `count` is not given. */
            interval?: number;
            /** @description Width of one tile in pixels; its height keeps the video's aspect ratio. Default: `160`. */
            width?: number;
            /** @description Tiles per row of the sprite (fewer when there are fewer tiles); rows follow from the count. columns × width at most 16383 (the sprite's widest side). Default: `10`. */
            columns?: number;
            /**
             * @description Default: `"jpg"`.
             * @enum {string}
             */
            format?: "jpg" | "webp";
            /** @description Default: `75`. */
            quality?: number;
            /** @description An image or a line of text laid over the output (docs/job-types.md, Watermarks). */
            watermark?: {
                /** @description A line of text (at most 200 characters), drawn in white with a dark shadow. Give `text` or `url`. */
                text?: string & (unknown & unknown);
                /**
                 * Format: uri
                 * @description A PNG, JPEG, WebP or AVIF image (at most 10 MiB), such as a logo with transparency. Give `text` or `url`.
                 */
                url?: string;
                /**
                 * @description Where the overlay sits. Default: `bottom-right`. Default: `"bottom-right"`.
                 * @enum {string}
                 */
                position?: "top-left" | "top" | "top-right" | "left" | "center" | "right" | "bottom-left" | "bottom" | "bottom-right";
                /** @description Distance from the edges the overlay is near, as a fraction of the output's shorter side. Default: 0.02. Default: `0.02`. */
                margin?: number;
                /** @description 0 (invisible) to 1 (opaque). Default: 1. Default: `1`. */
                opacity?: number;
                /** @description An image's width, or the text's height, as a fraction of the output's width or height. Default: 0.15 for an image, 0.05 for text. The overlay is made smaller when it would not fit inside the margins. */
                size?: number;
            };
        };
        /** @description Creates a video-storyboard job (HTTP dialect): the input URL in `input`, the other params in `options`. */
        CreateVideoStoryboardRequest: {
            /**
             * @description Either spelling of the job type.
             * @enum {string}
             */
            type: "video-storyboard" | "videoStoryboard";
            /** @description The http(s) URL of the media to process, or `upload:upl_…` for one of your uploads. */
            input: string;
            options?: components["schemas"]["VideoStoryboardOptions"];
            /** @description 1–10, lower runs first within an organization. Default: `5`. */
            priority?: number;
            /**
             * Format: uri
             * @description Receives a signed POST with the job when it ends.
             */
            webhookUrl?: string;
            /** @description Signs this job's webhooks instead of the organization's secret. */
            webhookSecret?: string;
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata?: {
                [key: string]: string;
            };
            /** @description Copies each output to the organization's own bucket when the job completes. */
            store?: {
                /** @description A destination's id (`dst_…`) of the job's organization. */
                destination: string;
                /** @description Prepended to each output's name in the bucket, such as `videos/2026/`. */
                prefix?: string;
            };
        };
        /** @description Creates a videoStoryboard job (client-library dialect): every param, `url` included, in `params`. */
        CreateVideoStoryboardSdkRequest: {
            /**
             * @description Either spelling of the job type.
             * @enum {string}
             */
            type: "video-storyboard" | "videoStoryboard";
            params: components["schemas"]["VideoStoryboardParams"];
            /** @description 1–10, lower runs first within an organization. Default: `5`. */
            priority?: number;
            /**
             * Format: uri
             * @description Receives a signed POST with the job when it ends.
             */
            webhookUrl?: string;
            /** @description Signs this job's webhooks instead of the organization's secret. */
            webhookSecret?: string;
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata?: {
                [key: string]: string;
            };
            /** @description Copies each output to the organization's own bucket when the job completes. */
            store?: {
                /** @description A destination's id (`dst_…`) of the job's organization. */
                destination: string;
                /** @description Prepended to each output's name in the bucket, such as `videos/2026/`. */
                prefix?: string;
            };
        };
        /** @description The HTTP dialect's `options` of a video-preview job: its params other than `url`. */
        VideoPreviewOptions: {
            /**
             * @description `webp` (animated, the default), `gif`, or `mp4` (H.264, no audio). Default: `"webp"`.
             * @enum {string}
             */
            format?: "webp" | "gif" | "mp4";
            /** @description Where the preview starts, in seconds. Omit for a span chosen around a third of the video (docs/job-types.md). */
            start?: number;
            /** @description The preview's length in seconds, cut short by the end of the video. Plans allow less: free 10 s, pro 20 s. Default: `5`. */
            duration?: number;
            /** @description Width in pixels, height keeping the aspect ratio (both even); never wider than the video. Plans allow less: free 640, pro 960. Default: `320`. */
            width?: number;
            /** @description Frames per second, never more than the video's own. Plans allow less: free 15, pro 24. Default: `10`. */
            fps?: number;
            /** @description WebP and GIF: play forever (true) or once. An MP4 has no such flag: its player decides. Default: `true`. */
            loop?: boolean;
            /** @description Instead of one span, this many clips of `duration` ÷ `segments` seconds each (at least 1 s), spread evenly over the video and joined, as Cloudinary's preview. Not with `start`. */
            segments?: number;
            /** @description An image or a line of text laid over the output (docs/job-types.md, Watermarks). */
            watermark?: {
                /** @description A line of text (at most 200 characters), drawn in white with a dark shadow. Give `text` or `url`. */
                text?: string & (unknown & unknown);
                /**
                 * Format: uri
                 * @description A PNG, JPEG, WebP or AVIF image (at most 10 MiB), such as a logo with transparency. Give `text` or `url`.
                 */
                url?: string;
                /**
                 * @description Where the overlay sits. Default: `bottom-right`. Default: `"bottom-right"`.
                 * @enum {string}
                 */
                position?: "top-left" | "top" | "top-right" | "left" | "center" | "right" | "bottom-left" | "bottom" | "bottom-right";
                /** @description Distance from the edges the overlay is near, as a fraction of the output's shorter side. Default: 0.02. Default: `0.02`. */
                margin?: number;
                /** @description 0 (invisible) to 1 (opaque). Default: 1. Default: `1`. */
                opacity?: number;
                /** @description An image's width, or the text's height, as a fraction of the output's width or height. Default: 0.15 for an image, 0.05 for text. The overlay is made smaller when it would not fit inside the margins. */
                size?: number;
            };
        };
        /** @description Creates a video-preview job (HTTP dialect): the input URL in `input`, the other params in `options`. */
        CreateVideoPreviewRequest: {
            /**
             * @description Either spelling of the job type.
             * @enum {string}
             */
            type: "video-preview" | "videoPreview";
            /** @description The http(s) URL of the media to process, or `upload:upl_…` for one of your uploads. */
            input: string;
            options?: components["schemas"]["VideoPreviewOptions"];
            /** @description 1–10, lower runs first within an organization. Default: `5`. */
            priority?: number;
            /**
             * Format: uri
             * @description Receives a signed POST with the job when it ends.
             */
            webhookUrl?: string;
            /** @description Signs this job's webhooks instead of the organization's secret. */
            webhookSecret?: string;
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata?: {
                [key: string]: string;
            };
            /** @description Copies each output to the organization's own bucket when the job completes. */
            store?: {
                /** @description A destination's id (`dst_…`) of the job's organization. */
                destination: string;
                /** @description Prepended to each output's name in the bucket, such as `videos/2026/`. */
                prefix?: string;
            };
        };
        /** @description Creates a videoPreview job (client-library dialect): every param, `url` included, in `params`. */
        CreateVideoPreviewSdkRequest: {
            /**
             * @description Either spelling of the job type.
             * @enum {string}
             */
            type: "video-preview" | "videoPreview";
            params: components["schemas"]["VideoPreviewParams"];
            /** @description 1–10, lower runs first within an organization. Default: `5`. */
            priority?: number;
            /**
             * Format: uri
             * @description Receives a signed POST with the job when it ends.
             */
            webhookUrl?: string;
            /** @description Signs this job's webhooks instead of the organization's secret. */
            webhookSecret?: string;
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata?: {
                [key: string]: string;
            };
            /** @description Copies each output to the organization's own bucket when the job completes. */
            store?: {
                /** @description A destination's id (`dst_…`) of the job's organization. */
                destination: string;
                /** @description Prepended to each output's name in the bucket, such as `videos/2026/`. */
                prefix?: string;
            };
        };
        /** @description The HTTP dialect's `options` of a video-adaptive job: its params other than `url`. */
        VideoAdaptiveOptions: {
            /** @description The renditions to make, explicitly, each size once; default: the ladder (240, 360, 480, 720, 1080, 1440, 2160) up to the input's size and `maxHeight`, `maxRenditions` of it. Sizes above the input's are left out, never upscaled. */
            renditions?: {
                /** @description The rendition's shorter side in pixels (720 is 1280×720, or 720×1280 for a portrait video); never above the input's own. */
                height: number;
                /** @description Its average video bitrate, such as `2.8M`, from 100K to 20M; default: the ladder's for the nearest rung at or above this size. */
                bitrate?: string;
            }[];
            /** @description The largest rendition's shorter side, for the default ladder. Default: `1080`. */
            maxHeight?: number;
            /** @description How many rungs of the default ladder: the top one, the lowest that fits and the rest spread between. Default: `3`. */
            maxRenditions?: number;
            /**
             * @description Default: `"h264"`.
             * @constant
             */
            codec?: "h264";
            /** @description Seconds per segment; keyframes fall on the same times in every rendition. Default: `6`. */
            segmentDuration?: number;
            /** @description Keep the sound (AAC, 128 kbit/s stereo, in every rendition); false, or an input without sound, makes a stream without. Default: `true`. */
            audio?: boolean;
            /** @description Also write a DASH manifest (stream/manifest.mpd) over the same encodes: the renditions' packets copied into one file each, video and audio apart. Default: `false`. */
            dash?: boolean;
            /** @description Also write a progressive (non-fragmented, faststart) MP4 of the top rendition, for download. Default: `false`. */
            mp4?: boolean;
            /** @description An image or a line of text laid over the output (docs/job-types.md, Watermarks). */
            watermark?: {
                /** @description A line of text (at most 200 characters), drawn in white with a dark shadow. Give `text` or `url`. */
                text?: string & (unknown & unknown);
                /**
                 * Format: uri
                 * @description A PNG, JPEG, WebP or AVIF image (at most 10 MiB), such as a logo with transparency. Give `text` or `url`.
                 */
                url?: string;
                /**
                 * @description Where the overlay sits. Default: `bottom-right`. Default: `"bottom-right"`.
                 * @enum {string}
                 */
                position?: "top-left" | "top" | "top-right" | "left" | "center" | "right" | "bottom-left" | "bottom" | "bottom-right";
                /** @description Distance from the edges the overlay is near, as a fraction of the output's shorter side. Default: 0.02. Default: `0.02`. */
                margin?: number;
                /** @description 0 (invisible) to 1 (opaque). Default: 1. Default: `1`. */
                opacity?: number;
                /** @description An image's width, or the text's height, as a fraction of the output's width or height. Default: 0.15 for an image, 0.05 for text. The overlay is made smaller when it would not fit inside the margins. */
                size?: number;
            };
        };
        /** @description Creates a video-adaptive job (HTTP dialect): the input URL in `input`, the other params in `options`. */
        CreateVideoAdaptiveRequest: {
            /**
             * @description Either spelling of the job type.
             * @enum {string}
             */
            type: "video-adaptive" | "videoAdaptive";
            /** @description The http(s) URL of the media to process, or `upload:upl_…` for one of your uploads. */
            input: string;
            options?: components["schemas"]["VideoAdaptiveOptions"];
            /** @description 1–10, lower runs first within an organization. Default: `5`. */
            priority?: number;
            /**
             * Format: uri
             * @description Receives a signed POST with the job when it ends.
             */
            webhookUrl?: string;
            /** @description Signs this job's webhooks instead of the organization's secret. */
            webhookSecret?: string;
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata?: {
                [key: string]: string;
            };
            /** @description Copies each output to the organization's own bucket when the job completes. */
            store?: {
                /** @description A destination's id (`dst_…`) of the job's organization. */
                destination: string;
                /** @description Prepended to each output's name in the bucket, such as `videos/2026/`. */
                prefix?: string;
            };
        };
        /** @description Creates a videoAdaptive job (client-library dialect): every param, `url` included, in `params`. */
        CreateVideoAdaptiveSdkRequest: {
            /**
             * @description Either spelling of the job type.
             * @enum {string}
             */
            type: "video-adaptive" | "videoAdaptive";
            params: components["schemas"]["VideoAdaptiveParams"];
            /** @description 1–10, lower runs first within an organization. Default: `5`. */
            priority?: number;
            /**
             * Format: uri
             * @description Receives a signed POST with the job when it ends.
             */
            webhookUrl?: string;
            /** @description Signs this job's webhooks instead of the organization's secret. */
            webhookSecret?: string;
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata?: {
                [key: string]: string;
            };
            /** @description Copies each output to the organization's own bucket when the job completes. */
            store?: {
                /** @description A destination's id (`dst_…`) of the job's organization. */
                destination: string;
                /** @description Prepended to each output's name in the bucket, such as `videos/2026/`. */
                prefix?: string;
            };
        };
        /** @description The HTTP dialect's `options` of a video-clip job: its params other than `url`. */
        VideoClipOptions: {
            /** @description Default: `0`. */
            start?: number;
            end?: number;
            /** @description Default: `false`. */
            fast?: boolean;
            /**
             * @description Default: `"high"`.
             * @enum {string}
             */
            quality?: "low" | "medium" | "high";
            /** @description Default: `false`. */
            stripAudio?: boolean;
        };
        /** @description Creates a video-clip job (HTTP dialect): the input URL in `input`, the other params in `options`. */
        CreateVideoClipRequest: {
            /**
             * @description Either spelling of the job type.
             * @enum {string}
             */
            type: "video-clip" | "videoClip";
            /** @description The http(s) URL of the media to process, or `upload:upl_…` for one of your uploads. */
            input: string;
            options?: components["schemas"]["VideoClipOptions"];
            /** @description 1–10, lower runs first within an organization. Default: `5`. */
            priority?: number;
            /**
             * Format: uri
             * @description Receives a signed POST with the job when it ends.
             */
            webhookUrl?: string;
            /** @description Signs this job's webhooks instead of the organization's secret. */
            webhookSecret?: string;
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata?: {
                [key: string]: string;
            };
            /** @description Copies each output to the organization's own bucket when the job completes. */
            store?: {
                /** @description A destination's id (`dst_…`) of the job's organization. */
                destination: string;
                /** @description Prepended to each output's name in the bucket, such as `videos/2026/`. */
                prefix?: string;
            };
        };
        /** @description Creates a videoClip job (client-library dialect): every param, `url` included, in `params`. */
        CreateVideoClipSdkRequest: {
            /**
             * @description Either spelling of the job type.
             * @enum {string}
             */
            type: "video-clip" | "videoClip";
            params: components["schemas"]["VideoClipParams"];
            /** @description 1–10, lower runs first within an organization. Default: `5`. */
            priority?: number;
            /**
             * Format: uri
             * @description Receives a signed POST with the job when it ends.
             */
            webhookUrl?: string;
            /** @description Signs this job's webhooks instead of the organization's secret. */
            webhookSecret?: string;
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata?: {
                [key: string]: string;
            };
            /** @description Copies each output to the organization's own bucket when the job completes. */
            store?: {
                /** @description A destination's id (`dst_…`) of the job's organization. */
                destination: string;
                /** @description Prepended to each output's name in the bucket, such as `videos/2026/`. */
                prefix?: string;
            };
        };
        /** @description The HTTP dialect's `options` of a video-concat job: its params other than `url`. */
        VideoConcatOptions: {
            append: (string)[];
            width?: number;
            height?: number;
            fps?: number;
            /** @description Default: `0`. */
            crossfade?: number;
            /**
             * @description Default: `"high"`.
             * @enum {string}
             */
            quality?: "low" | "medium" | "high";
        };
        /** @description Creates a video-concat job (HTTP dialect): the input URL in `input`, the other params in `options`. */
        CreateVideoConcatRequest: {
            /**
             * @description Either spelling of the job type.
             * @enum {string}
             */
            type: "video-concat" | "videoConcat";
            /** @description The http(s) URL of the media to process, or `upload:upl_…` for one of your uploads. */
            input: string;
            options?: components["schemas"]["VideoConcatOptions"];
            /** @description 1–10, lower runs first within an organization. Default: `5`. */
            priority?: number;
            /**
             * Format: uri
             * @description Receives a signed POST with the job when it ends.
             */
            webhookUrl?: string;
            /** @description Signs this job's webhooks instead of the organization's secret. */
            webhookSecret?: string;
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata?: {
                [key: string]: string;
            };
            /** @description Copies each output to the organization's own bucket when the job completes. */
            store?: {
                /** @description A destination's id (`dst_…`) of the job's organization. */
                destination: string;
                /** @description Prepended to each output's name in the bucket, such as `videos/2026/`. */
                prefix?: string;
            };
        };
        /** @description Creates a videoConcat job (client-library dialect): every param, `url` included, in `params`. */
        CreateVideoConcatSdkRequest: {
            /**
             * @description Either spelling of the job type.
             * @enum {string}
             */
            type: "video-concat" | "videoConcat";
            params: components["schemas"]["VideoConcatParams"];
            /** @description 1–10, lower runs first within an organization. Default: `5`. */
            priority?: number;
            /**
             * Format: uri
             * @description Receives a signed POST with the job when it ends.
             */
            webhookUrl?: string;
            /** @description Signs this job's webhooks instead of the organization's secret. */
            webhookSecret?: string;
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata?: {
                [key: string]: string;
            };
            /** @description Copies each output to the organization's own bucket when the job completes. */
            store?: {
                /** @description A destination's id (`dst_…`) of the job's organization. */
                destination: string;
                /** @description Prepended to each output's name in the bucket, such as `videos/2026/`. */
                prefix?: string;
            };
        };
        /** @description Either dialect of a create, with either spelling of `type`. Unknown fields anywhere are refused. */
        CreateJobRequest: components["schemas"]["CreateCompressVideoRequest"] | components["schemas"]["CreateCompressVideoSdkRequest"] | components["schemas"]["CreateCompressImageRequest"] | components["schemas"]["CreateCompressImageSdkRequest"] | components["schemas"]["CreateCompressPdfRequest"] | components["schemas"]["CreateCompressPdfSdkRequest"] | components["schemas"]["CreateVideoThumbnailRequest"] | components["schemas"]["CreateVideoThumbnailSdkRequest"] | components["schemas"]["CreateExtractAudioRequest"] | components["schemas"]["CreateExtractAudioSdkRequest"] | components["schemas"]["CreateAudioWaveformRequest"] | components["schemas"]["CreateAudioWaveformSdkRequest"] | components["schemas"]["CreateVideoExtractionRequest"] | components["schemas"]["CreateVideoExtractionSdkRequest"] | components["schemas"]["CreateVideoStoryboardRequest"] | components["schemas"]["CreateVideoStoryboardSdkRequest"] | components["schemas"]["CreateVideoPreviewRequest"] | components["schemas"]["CreateVideoPreviewSdkRequest"] | components["schemas"]["CreateVideoAdaptiveRequest"] | components["schemas"]["CreateVideoAdaptiveSdkRequest"] | components["schemas"]["CreateVideoClipRequest"] | components["schemas"]["CreateVideoClipSdkRequest"] | components["schemas"]["CreateVideoConcatRequest"] | components["schemas"]["CreateVideoConcatSdkRequest"];
        CompressVideoResult: {
            url: string;
            expiresAt: string;
            size: number;
            width: number;
            height: number;
            duration: number;
            /** @enum {string} */
            format: "mp4" | "webm";
            /** @enum {string} */
            codec: "h264" | "h265" | "vp9" | "av1";
            bitrate: string;
            compressionRatio: number;
            source: {
                size: number;
                width: number;
                height: number;
                duration: number;
            };
        };
        CompressVideoJob: {
            id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "compress-video";
            /** @enum {string} */
            status: "queued" | "processing" | "completed" | "failed" | "cancelled";
            priority: number;
            progress: number | null;
            createdAt: string;
            startedAt?: string;
            completedAt?: string;
            /** @description Completed jobs only. Every `url` is a signed link valid for one hour, with `expiresAt` beside it. */
            result?: components["schemas"]["CompressVideoResult"];
            error?: components["schemas"]["JobFailure"];
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata: {
                [key: string]: string;
            };
            timings: {
                /** @description Created until its first attempt started (waiting for a concurrency slot and a processor). */
                queuedMs: number | null;
                /** @description The first attempt's start until the last one's: earlier attempts that did not end the job, and their wait for a processor; 0 when the first attempt ended it. */
                retriesMs: number | null;
                /** @description The last attempt's start sent to the processor until the processor took it and began the work, a container's cold start included. */
                startMs: number | null;
                /** @description The processor's read of the input before its tool starts, in the last attempt: the whole download, or for a type that reads as it goes (video) only the first range. */
                fetchInputMs: number | null;
                /** @description The processing itself (probe, tools, outputs written), in the last attempt. */
                processMs: number | null;
                /** @description Outputs moved from the processor into storage. */
                storeOutputMs: number | null;
                /** @description The processor's end (tools done, outputs stored) until the job's end was recorded: the news of the end reaching the service. */
                reportMs: number | null;
                /** @description Present when the encode ran in chunks on several seats (docs/fanout.md): processMs is then the stitch's. */
                fanout?: {
                    /** @description Chunks the video was cut into, each encoded on a seat of its own. */
                    chunks: number;
                    /** @description The most parts (chunks and the audio) that ran at once. */
                    seats: number;
                    /** @description The longest chunk's attempt, its start sent until its end recorded. */
                    longestChunkMs: number;
                    /** @description The first part's start until the last part's end. */
                    partsMs: number;
                    /** @description The stitch (joining and checking the chunks) on its processor; null until it ran. */
                    stitchMs: number | null;
                };
            };
            store?: components["schemas"]["JobStore"];
            /** @description When the job's stream became playable, before the job completed (videoAdaptive: docs/job-types.md). Absent until then, and on failed or cancelled jobs. */
            playableAt?: string;
            /** @description The stream a player can start from while the job still runs; present with `playableAt`, on processing and completed jobs. */
            playable?: {
                /** @description The master playlist (`…/master.m3u8`), signed for its folder as a result's `url` is: the playlists and segments it names resolve under it. It names only renditions whose files are stored, and grows as the others are; no file it names changes. */
                url: string;
                /** @description When the link expires (one hour); read the job again for a fresh one. */
                expiresAt: string;
            };
        };
        CompressImageResult: {
            url: string;
            expiresAt: string;
            size: number;
            width: number;
            height: number;
            /** @enum {string} */
            format: "jpg" | "png" | "webp" | "avif";
            compressionRatio: number;
            keptOriginal: boolean;
            source: {
                size: number;
                width: number;
                height: number;
                format: string;
            };
        };
        CompressImageJob: {
            id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "compress-image";
            /** @enum {string} */
            status: "queued" | "processing" | "completed" | "failed" | "cancelled";
            priority: number;
            progress: number | null;
            createdAt: string;
            startedAt?: string;
            completedAt?: string;
            /** @description Completed jobs only. Every `url` is a signed link valid for one hour, with `expiresAt` beside it. */
            result?: components["schemas"]["CompressImageResult"];
            error?: components["schemas"]["JobFailure"];
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata: {
                [key: string]: string;
            };
            timings: {
                /** @description Created until its first attempt started (waiting for a concurrency slot and a processor). */
                queuedMs: number | null;
                /** @description The first attempt's start until the last one's: earlier attempts that did not end the job, and their wait for a processor; 0 when the first attempt ended it. */
                retriesMs: number | null;
                /** @description The last attempt's start sent to the processor until the processor took it and began the work, a container's cold start included. */
                startMs: number | null;
                /** @description The processor's read of the input before its tool starts, in the last attempt: the whole download, or for a type that reads as it goes (video) only the first range. */
                fetchInputMs: number | null;
                /** @description The processing itself (probe, tools, outputs written), in the last attempt. */
                processMs: number | null;
                /** @description Outputs moved from the processor into storage. */
                storeOutputMs: number | null;
                /** @description The processor's end (tools done, outputs stored) until the job's end was recorded: the news of the end reaching the service. */
                reportMs: number | null;
                /** @description Present when the encode ran in chunks on several seats (docs/fanout.md): processMs is then the stitch's. */
                fanout?: {
                    /** @description Chunks the video was cut into, each encoded on a seat of its own. */
                    chunks: number;
                    /** @description The most parts (chunks and the audio) that ran at once. */
                    seats: number;
                    /** @description The longest chunk's attempt, its start sent until its end recorded. */
                    longestChunkMs: number;
                    /** @description The first part's start until the last part's end. */
                    partsMs: number;
                    /** @description The stitch (joining and checking the chunks) on its processor; null until it ran. */
                    stitchMs: number | null;
                };
            };
            store?: components["schemas"]["JobStore"];
            /** @description When the job's stream became playable, before the job completed (videoAdaptive: docs/job-types.md). Absent until then, and on failed or cancelled jobs. */
            playableAt?: string;
            /** @description The stream a player can start from while the job still runs; present with `playableAt`, on processing and completed jobs. */
            playable?: {
                /** @description The master playlist (`…/master.m3u8`), signed for its folder as a result's `url` is: the playlists and segments it names resolve under it. It names only renditions whose files are stored, and grows as the others are; no file it names changes. */
                url: string;
                /** @description When the link expires (one hour); read the job again for a fresh one. */
                expiresAt: string;
            };
        };
        CompressPdfResult: {
            url: string;
            expiresAt: string;
            size: number;
            /** @constant */
            format: "pdf";
            compressionRatio: number;
            pages: number;
            keptOriginal: boolean;
            source: {
                size: number;
                pages: number;
            };
        };
        CompressPdfJob: {
            id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "compress-pdf";
            /** @enum {string} */
            status: "queued" | "processing" | "completed" | "failed" | "cancelled";
            priority: number;
            progress: number | null;
            createdAt: string;
            startedAt?: string;
            completedAt?: string;
            /** @description Completed jobs only. Every `url` is a signed link valid for one hour, with `expiresAt` beside it. */
            result?: components["schemas"]["CompressPdfResult"];
            error?: components["schemas"]["JobFailure"];
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata: {
                [key: string]: string;
            };
            timings: {
                /** @description Created until its first attempt started (waiting for a concurrency slot and a processor). */
                queuedMs: number | null;
                /** @description The first attempt's start until the last one's: earlier attempts that did not end the job, and their wait for a processor; 0 when the first attempt ended it. */
                retriesMs: number | null;
                /** @description The last attempt's start sent to the processor until the processor took it and began the work, a container's cold start included. */
                startMs: number | null;
                /** @description The processor's read of the input before its tool starts, in the last attempt: the whole download, or for a type that reads as it goes (video) only the first range. */
                fetchInputMs: number | null;
                /** @description The processing itself (probe, tools, outputs written), in the last attempt. */
                processMs: number | null;
                /** @description Outputs moved from the processor into storage. */
                storeOutputMs: number | null;
                /** @description The processor's end (tools done, outputs stored) until the job's end was recorded: the news of the end reaching the service. */
                reportMs: number | null;
                /** @description Present when the encode ran in chunks on several seats (docs/fanout.md): processMs is then the stitch's. */
                fanout?: {
                    /** @description Chunks the video was cut into, each encoded on a seat of its own. */
                    chunks: number;
                    /** @description The most parts (chunks and the audio) that ran at once. */
                    seats: number;
                    /** @description The longest chunk's attempt, its start sent until its end recorded. */
                    longestChunkMs: number;
                    /** @description The first part's start until the last part's end. */
                    partsMs: number;
                    /** @description The stitch (joining and checking the chunks) on its processor; null until it ran. */
                    stitchMs: number | null;
                };
            };
            store?: components["schemas"]["JobStore"];
            /** @description When the job's stream became playable, before the job completed (videoAdaptive: docs/job-types.md). Absent until then, and on failed or cancelled jobs. */
            playableAt?: string;
            /** @description The stream a player can start from while the job still runs; present with `playableAt`, on processing and completed jobs. */
            playable?: {
                /** @description The master playlist (`…/master.m3u8`), signed for its folder as a result's `url` is: the playlists and segments it names resolve under it. It names only renditions whose files are stored, and grows as the others are; no file it names changes. */
                url: string;
                /** @description When the link expires (one hour); read the job again for a fresh one. */
                expiresAt: string;
            };
        };
        VideoThumbnailResult: {
            url: string;
            expiresAt: string;
            size: number;
            width: number;
            height: number;
            /** @enum {string} */
            format: "jpg" | "png" | "webp";
            timestamp: number;
            source: {
                size: number;
                width: number;
                height: number;
                duration: number;
            };
        };
        VideoThumbnailJob: {
            id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "video-thumbnail";
            /** @enum {string} */
            status: "queued" | "processing" | "completed" | "failed" | "cancelled";
            priority: number;
            progress: number | null;
            createdAt: string;
            startedAt?: string;
            completedAt?: string;
            /** @description Completed jobs only. Every `url` is a signed link valid for one hour, with `expiresAt` beside it. */
            result?: components["schemas"]["VideoThumbnailResult"];
            error?: components["schemas"]["JobFailure"];
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata: {
                [key: string]: string;
            };
            timings: {
                /** @description Created until its first attempt started (waiting for a concurrency slot and a processor). */
                queuedMs: number | null;
                /** @description The first attempt's start until the last one's: earlier attempts that did not end the job, and their wait for a processor; 0 when the first attempt ended it. */
                retriesMs: number | null;
                /** @description The last attempt's start sent to the processor until the processor took it and began the work, a container's cold start included. */
                startMs: number | null;
                /** @description The processor's read of the input before its tool starts, in the last attempt: the whole download, or for a type that reads as it goes (video) only the first range. */
                fetchInputMs: number | null;
                /** @description The processing itself (probe, tools, outputs written), in the last attempt. */
                processMs: number | null;
                /** @description Outputs moved from the processor into storage. */
                storeOutputMs: number | null;
                /** @description The processor's end (tools done, outputs stored) until the job's end was recorded: the news of the end reaching the service. */
                reportMs: number | null;
                /** @description Present when the encode ran in chunks on several seats (docs/fanout.md): processMs is then the stitch's. */
                fanout?: {
                    /** @description Chunks the video was cut into, each encoded on a seat of its own. */
                    chunks: number;
                    /** @description The most parts (chunks and the audio) that ran at once. */
                    seats: number;
                    /** @description The longest chunk's attempt, its start sent until its end recorded. */
                    longestChunkMs: number;
                    /** @description The first part's start until the last part's end. */
                    partsMs: number;
                    /** @description The stitch (joining and checking the chunks) on its processor; null until it ran. */
                    stitchMs: number | null;
                };
            };
            store?: components["schemas"]["JobStore"];
            /** @description When the job's stream became playable, before the job completed (videoAdaptive: docs/job-types.md). Absent until then, and on failed or cancelled jobs. */
            playableAt?: string;
            /** @description The stream a player can start from while the job still runs; present with `playableAt`, on processing and completed jobs. */
            playable?: {
                /** @description The master playlist (`…/master.m3u8`), signed for its folder as a result's `url` is: the playlists and segments it names resolve under it. It names only renditions whose files are stored, and grows as the others are; no file it names changes. */
                url: string;
                /** @description When the link expires (one hour); read the job again for a fresh one. */
                expiresAt: string;
            };
        };
        ExtractAudioResult: {
            url: string;
            expiresAt: string;
            size: number;
            duration: number;
            /** @enum {string} */
            format: "mp3" | "aac" | "opus" | "flac" | "wav";
            bitrate: string;
            loudness?: {
                before: {
                    integratedLufs: number;
                    truePeakDb: number;
                    lra: number;
                } | null;
                after: {
                    integratedLufs: number;
                    truePeakDb: number;
                    lra: number;
                } | null;
                /** @enum {string} */
                mode: "linear" | "dynamic" | "none";
            };
            source: {
                size: number;
                duration: number;
                audioBitrate: number | null;
                audioCodec: string;
            };
        };
        ExtractAudioJob: {
            id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "extract-audio";
            /** @enum {string} */
            status: "queued" | "processing" | "completed" | "failed" | "cancelled";
            priority: number;
            progress: number | null;
            createdAt: string;
            startedAt?: string;
            completedAt?: string;
            /** @description Completed jobs only. Every `url` is a signed link valid for one hour, with `expiresAt` beside it. */
            result?: components["schemas"]["ExtractAudioResult"];
            error?: components["schemas"]["JobFailure"];
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata: {
                [key: string]: string;
            };
            timings: {
                /** @description Created until its first attempt started (waiting for a concurrency slot and a processor). */
                queuedMs: number | null;
                /** @description The first attempt's start until the last one's: earlier attempts that did not end the job, and their wait for a processor; 0 when the first attempt ended it. */
                retriesMs: number | null;
                /** @description The last attempt's start sent to the processor until the processor took it and began the work, a container's cold start included. */
                startMs: number | null;
                /** @description The processor's read of the input before its tool starts, in the last attempt: the whole download, or for a type that reads as it goes (video) only the first range. */
                fetchInputMs: number | null;
                /** @description The processing itself (probe, tools, outputs written), in the last attempt. */
                processMs: number | null;
                /** @description Outputs moved from the processor into storage. */
                storeOutputMs: number | null;
                /** @description The processor's end (tools done, outputs stored) until the job's end was recorded: the news of the end reaching the service. */
                reportMs: number | null;
                /** @description Present when the encode ran in chunks on several seats (docs/fanout.md): processMs is then the stitch's. */
                fanout?: {
                    /** @description Chunks the video was cut into, each encoded on a seat of its own. */
                    chunks: number;
                    /** @description The most parts (chunks and the audio) that ran at once. */
                    seats: number;
                    /** @description The longest chunk's attempt, its start sent until its end recorded. */
                    longestChunkMs: number;
                    /** @description The first part's start until the last part's end. */
                    partsMs: number;
                    /** @description The stitch (joining and checking the chunks) on its processor; null until it ran. */
                    stitchMs: number | null;
                };
            };
            store?: components["schemas"]["JobStore"];
            /** @description When the job's stream became playable, before the job completed (videoAdaptive: docs/job-types.md). Absent until then, and on failed or cancelled jobs. */
            playableAt?: string;
            /** @description The stream a player can start from while the job still runs; present with `playableAt`, on processing and completed jobs. */
            playable?: {
                /** @description The master playlist (`…/master.m3u8`), signed for its folder as a result's `url` is: the playlists and segments it names resolve under it. It names only renditions whose files are stored, and grows as the others are; no file it names changes. */
                url: string;
                /** @description When the link expires (one hour); read the job again for a fresh one. */
                expiresAt: string;
            };
        };
        AudioWaveformResult: {
            url: string;
            expiresAt: string;
            size: number;
            width: number;
            height: number;
            /** @constant */
            format: "png";
            peaks: {
                url: string;
                expiresAt: string;
                size: number;
                length: number;
                sampleRate: number;
                samplesPerPixel: number;
                /** @constant */
                bits: 8;
            };
            duration: number;
            source: {
                size: number;
                duration: number;
                audioBitrate: number | null;
                audioCodec: string;
            };
        };
        AudioWaveformJob: {
            id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "audio-waveform";
            /** @enum {string} */
            status: "queued" | "processing" | "completed" | "failed" | "cancelled";
            priority: number;
            progress: number | null;
            createdAt: string;
            startedAt?: string;
            completedAt?: string;
            /** @description Completed jobs only. Every `url` is a signed link valid for one hour, with `expiresAt` beside it. */
            result?: components["schemas"]["AudioWaveformResult"];
            error?: components["schemas"]["JobFailure"];
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata: {
                [key: string]: string;
            };
            timings: {
                /** @description Created until its first attempt started (waiting for a concurrency slot and a processor). */
                queuedMs: number | null;
                /** @description The first attempt's start until the last one's: earlier attempts that did not end the job, and their wait for a processor; 0 when the first attempt ended it. */
                retriesMs: number | null;
                /** @description The last attempt's start sent to the processor until the processor took it and began the work, a container's cold start included. */
                startMs: number | null;
                /** @description The processor's read of the input before its tool starts, in the last attempt: the whole download, or for a type that reads as it goes (video) only the first range. */
                fetchInputMs: number | null;
                /** @description The processing itself (probe, tools, outputs written), in the last attempt. */
                processMs: number | null;
                /** @description Outputs moved from the processor into storage. */
                storeOutputMs: number | null;
                /** @description The processor's end (tools done, outputs stored) until the job's end was recorded: the news of the end reaching the service. */
                reportMs: number | null;
                /** @description Present when the encode ran in chunks on several seats (docs/fanout.md): processMs is then the stitch's. */
                fanout?: {
                    /** @description Chunks the video was cut into, each encoded on a seat of its own. */
                    chunks: number;
                    /** @description The most parts (chunks and the audio) that ran at once. */
                    seats: number;
                    /** @description The longest chunk's attempt, its start sent until its end recorded. */
                    longestChunkMs: number;
                    /** @description The first part's start until the last part's end. */
                    partsMs: number;
                    /** @description The stitch (joining and checking the chunks) on its processor; null until it ran. */
                    stitchMs: number | null;
                };
            };
            store?: components["schemas"]["JobStore"];
            /** @description When the job's stream became playable, before the job completed (videoAdaptive: docs/job-types.md). Absent until then, and on failed or cancelled jobs. */
            playableAt?: string;
            /** @description The stream a player can start from while the job still runs; present with `playableAt`, on processing and completed jobs. */
            playable?: {
                /** @description The master playlist (`…/master.m3u8`), signed for its folder as a result's `url` is: the playlists and segments it names resolve under it. It names only renditions whose files are stored, and grows as the others are; no file it names changes. */
                url: string;
                /** @description When the link expires (one hour); read the job again for a fresh one. */
                expiresAt: string;
            };
        };
        VideoExtractionResult: {
            audio: {
                url: string;
                expiresAt: string;
                size: number;
                duration: number;
                /** @constant */
                format: "mp3";
                bitrate: string;
            } | null;
            frames: {
                url: string;
                expiresAt: string;
                size: number;
                width: number;
                height: number;
                /** @enum {string} */
                format: "jpg" | "png" | "webp";
                timestamp: number;
            }[];
            source: {
                size: number;
                duration: number;
                width: number;
                height: number;
                format: string;
                hasAudio: boolean;
            };
        };
        VideoExtractionJob: {
            id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "video-extraction";
            /** @enum {string} */
            status: "queued" | "processing" | "completed" | "failed" | "cancelled";
            priority: number;
            progress: number | null;
            createdAt: string;
            startedAt?: string;
            completedAt?: string;
            /** @description Completed jobs only. Every `url` is a signed link valid for one hour, with `expiresAt` beside it. */
            result?: components["schemas"]["VideoExtractionResult"];
            error?: components["schemas"]["JobFailure"];
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata: {
                [key: string]: string;
            };
            timings: {
                /** @description Created until its first attempt started (waiting for a concurrency slot and a processor). */
                queuedMs: number | null;
                /** @description The first attempt's start until the last one's: earlier attempts that did not end the job, and their wait for a processor; 0 when the first attempt ended it. */
                retriesMs: number | null;
                /** @description The last attempt's start sent to the processor until the processor took it and began the work, a container's cold start included. */
                startMs: number | null;
                /** @description The processor's read of the input before its tool starts, in the last attempt: the whole download, or for a type that reads as it goes (video) only the first range. */
                fetchInputMs: number | null;
                /** @description The processing itself (probe, tools, outputs written), in the last attempt. */
                processMs: number | null;
                /** @description Outputs moved from the processor into storage. */
                storeOutputMs: number | null;
                /** @description The processor's end (tools done, outputs stored) until the job's end was recorded: the news of the end reaching the service. */
                reportMs: number | null;
                /** @description Present when the encode ran in chunks on several seats (docs/fanout.md): processMs is then the stitch's. */
                fanout?: {
                    /** @description Chunks the video was cut into, each encoded on a seat of its own. */
                    chunks: number;
                    /** @description The most parts (chunks and the audio) that ran at once. */
                    seats: number;
                    /** @description The longest chunk's attempt, its start sent until its end recorded. */
                    longestChunkMs: number;
                    /** @description The first part's start until the last part's end. */
                    partsMs: number;
                    /** @description The stitch (joining and checking the chunks) on its processor; null until it ran. */
                    stitchMs: number | null;
                };
            };
            store?: components["schemas"]["JobStore"];
            /** @description When the job's stream became playable, before the job completed (videoAdaptive: docs/job-types.md). Absent until then, and on failed or cancelled jobs. */
            playableAt?: string;
            /** @description The stream a player can start from while the job still runs; present with `playableAt`, on processing and completed jobs. */
            playable?: {
                /** @description The master playlist (`…/master.m3u8`), signed for its folder as a result's `url` is: the playlists and segments it names resolve under it. It names only renditions whose files are stored, and grows as the others are; no file it names changes. */
                url: string;
                /** @description When the link expires (one hour); read the job again for a fresh one. */
                expiresAt: string;
            };
        };
        VideoStoryboardResult: {
            url: string;
            expiresAt: string;
            size: number;
            sprite: {
                url: string;
                expiresAt: string;
                size: number;
                width: number;
                height: number;
                /** @enum {string} */
                format: "jpg" | "webp";
            };
            tile: {
                width: number;
                height: number;
                columns: number;
                rows: number;
                count: number;
                interval: number;
            };
            duration: number;
            source: {
                size: number;
                duration: number;
                width: number;
                height: number;
                format: string;
                hasAudio: boolean;
            };
        };
        VideoStoryboardJob: {
            id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "video-storyboard";
            /** @enum {string} */
            status: "queued" | "processing" | "completed" | "failed" | "cancelled";
            priority: number;
            progress: number | null;
            createdAt: string;
            startedAt?: string;
            completedAt?: string;
            /** @description Completed jobs only. Every `url` is a signed link valid for one hour, with `expiresAt` beside it. */
            result?: components["schemas"]["VideoStoryboardResult"];
            error?: components["schemas"]["JobFailure"];
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata: {
                [key: string]: string;
            };
            timings: {
                /** @description Created until its first attempt started (waiting for a concurrency slot and a processor). */
                queuedMs: number | null;
                /** @description The first attempt's start until the last one's: earlier attempts that did not end the job, and their wait for a processor; 0 when the first attempt ended it. */
                retriesMs: number | null;
                /** @description The last attempt's start sent to the processor until the processor took it and began the work, a container's cold start included. */
                startMs: number | null;
                /** @description The processor's read of the input before its tool starts, in the last attempt: the whole download, or for a type that reads as it goes (video) only the first range. */
                fetchInputMs: number | null;
                /** @description The processing itself (probe, tools, outputs written), in the last attempt. */
                processMs: number | null;
                /** @description Outputs moved from the processor into storage. */
                storeOutputMs: number | null;
                /** @description The processor's end (tools done, outputs stored) until the job's end was recorded: the news of the end reaching the service. */
                reportMs: number | null;
                /** @description Present when the encode ran in chunks on several seats (docs/fanout.md): processMs is then the stitch's. */
                fanout?: {
                    /** @description Chunks the video was cut into, each encoded on a seat of its own. */
                    chunks: number;
                    /** @description The most parts (chunks and the audio) that ran at once. */
                    seats: number;
                    /** @description The longest chunk's attempt, its start sent until its end recorded. */
                    longestChunkMs: number;
                    /** @description The first part's start until the last part's end. */
                    partsMs: number;
                    /** @description The stitch (joining and checking the chunks) on its processor; null until it ran. */
                    stitchMs: number | null;
                };
            };
            store?: components["schemas"]["JobStore"];
            /** @description When the job's stream became playable, before the job completed (videoAdaptive: docs/job-types.md). Absent until then, and on failed or cancelled jobs. */
            playableAt?: string;
            /** @description The stream a player can start from while the job still runs; present with `playableAt`, on processing and completed jobs. */
            playable?: {
                /** @description The master playlist (`…/master.m3u8`), signed for its folder as a result's `url` is: the playlists and segments it names resolve under it. It names only renditions whose files are stored, and grows as the others are; no file it names changes. */
                url: string;
                /** @description When the link expires (one hour); read the job again for a fresh one. */
                expiresAt: string;
            };
        };
        VideoPreviewResult: {
            url: string;
            expiresAt: string;
            size: number;
            width: number;
            height: number;
            /** @enum {string} */
            format: "webp" | "gif" | "mp4";
            duration: number;
            frameRate: number;
            frames: number;
            start: number;
            segments?: {
                start: number;
                duration: number;
            }[];
            source: {
                size: number;
                duration: number;
                width: number;
                height: number;
                format: string;
                hasAudio: boolean;
            };
        };
        VideoPreviewJob: {
            id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "video-preview";
            /** @enum {string} */
            status: "queued" | "processing" | "completed" | "failed" | "cancelled";
            priority: number;
            progress: number | null;
            createdAt: string;
            startedAt?: string;
            completedAt?: string;
            /** @description Completed jobs only. Every `url` is a signed link valid for one hour, with `expiresAt` beside it. */
            result?: components["schemas"]["VideoPreviewResult"];
            error?: components["schemas"]["JobFailure"];
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata: {
                [key: string]: string;
            };
            timings: {
                /** @description Created until its first attempt started (waiting for a concurrency slot and a processor). */
                queuedMs: number | null;
                /** @description The first attempt's start until the last one's: earlier attempts that did not end the job, and their wait for a processor; 0 when the first attempt ended it. */
                retriesMs: number | null;
                /** @description The last attempt's start sent to the processor until the processor took it and began the work, a container's cold start included. */
                startMs: number | null;
                /** @description The processor's read of the input before its tool starts, in the last attempt: the whole download, or for a type that reads as it goes (video) only the first range. */
                fetchInputMs: number | null;
                /** @description The processing itself (probe, tools, outputs written), in the last attempt. */
                processMs: number | null;
                /** @description Outputs moved from the processor into storage. */
                storeOutputMs: number | null;
                /** @description The processor's end (tools done, outputs stored) until the job's end was recorded: the news of the end reaching the service. */
                reportMs: number | null;
                /** @description Present when the encode ran in chunks on several seats (docs/fanout.md): processMs is then the stitch's. */
                fanout?: {
                    /** @description Chunks the video was cut into, each encoded on a seat of its own. */
                    chunks: number;
                    /** @description The most parts (chunks and the audio) that ran at once. */
                    seats: number;
                    /** @description The longest chunk's attempt, its start sent until its end recorded. */
                    longestChunkMs: number;
                    /** @description The first part's start until the last part's end. */
                    partsMs: number;
                    /** @description The stitch (joining and checking the chunks) on its processor; null until it ran. */
                    stitchMs: number | null;
                };
            };
            store?: components["schemas"]["JobStore"];
            /** @description When the job's stream became playable, before the job completed (videoAdaptive: docs/job-types.md). Absent until then, and on failed or cancelled jobs. */
            playableAt?: string;
            /** @description The stream a player can start from while the job still runs; present with `playableAt`, on processing and completed jobs. */
            playable?: {
                /** @description The master playlist (`…/master.m3u8`), signed for its folder as a result's `url` is: the playlists and segments it names resolve under it. It names only renditions whose files are stored, and grows as the others are; no file it names changes. */
                url: string;
                /** @description When the link expires (one hour); read the job again for a fresh one. */
                expiresAt: string;
            };
        };
        VideoAdaptiveResult: {
            url: string;
            expiresAt: string;
            size: number;
            dash: {
                url: string;
                expiresAt: string;
                size: number;
            } | null;
            mp4: {
                url: string;
                expiresAt: string;
                size: number;
                width: number;
                height: number;
                bitrate: string;
            } | null;
            renditions: {
                url: string;
                expiresAt: string;
                size: number;
                width: number;
                height: number;
                bandwidth: number;
                averageBandwidth: number;
                codecs: string;
                frameRate: number;
            }[];
            totalSize: number;
            duration: number;
            segmentDuration: number;
            source: {
                size: number;
                duration: number;
                width: number;
                height: number;
                format: string;
                hasAudio: boolean;
            };
        };
        VideoAdaptiveJob: {
            id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "video-adaptive";
            /** @enum {string} */
            status: "queued" | "processing" | "completed" | "failed" | "cancelled";
            priority: number;
            progress: number | null;
            createdAt: string;
            startedAt?: string;
            completedAt?: string;
            /** @description Completed jobs only. Every `url` is a signed link valid for one hour, with `expiresAt` beside it. */
            result?: components["schemas"]["VideoAdaptiveResult"];
            error?: components["schemas"]["JobFailure"];
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata: {
                [key: string]: string;
            };
            timings: {
                /** @description Created until its first attempt started (waiting for a concurrency slot and a processor). */
                queuedMs: number | null;
                /** @description The first attempt's start until the last one's: earlier attempts that did not end the job, and their wait for a processor; 0 when the first attempt ended it. */
                retriesMs: number | null;
                /** @description The last attempt's start sent to the processor until the processor took it and began the work, a container's cold start included. */
                startMs: number | null;
                /** @description The processor's read of the input before its tool starts, in the last attempt: the whole download, or for a type that reads as it goes (video) only the first range. */
                fetchInputMs: number | null;
                /** @description The processing itself (probe, tools, outputs written), in the last attempt. */
                processMs: number | null;
                /** @description Outputs moved from the processor into storage. */
                storeOutputMs: number | null;
                /** @description The processor's end (tools done, outputs stored) until the job's end was recorded: the news of the end reaching the service. */
                reportMs: number | null;
                /** @description Present when the encode ran in chunks on several seats (docs/fanout.md): processMs is then the stitch's. */
                fanout?: {
                    /** @description Chunks the video was cut into, each encoded on a seat of its own. */
                    chunks: number;
                    /** @description The most parts (chunks and the audio) that ran at once. */
                    seats: number;
                    /** @description The longest chunk's attempt, its start sent until its end recorded. */
                    longestChunkMs: number;
                    /** @description The first part's start until the last part's end. */
                    partsMs: number;
                    /** @description The stitch (joining and checking the chunks) on its processor; null until it ran. */
                    stitchMs: number | null;
                };
            };
            store?: components["schemas"]["JobStore"];
            /** @description When the job's stream became playable, before the job completed (videoAdaptive: docs/job-types.md). Absent until then, and on failed or cancelled jobs. */
            playableAt?: string;
            /** @description The stream a player can start from while the job still runs; present with `playableAt`, on processing and completed jobs. */
            playable?: {
                /** @description The master playlist (`…/master.m3u8`), signed for its folder as a result's `url` is: the playlists and segments it names resolve under it. It names only renditions whose files are stored, and grows as the others are; no file it names changes. */
                url: string;
                /** @description When the link expires (one hour); read the job again for a fresh one. */
                expiresAt: string;
            };
        };
        VideoClipResult: {
            url: string;
            expiresAt: string;
            size: number;
            start: number;
            end: number;
            duration: number;
            width: number;
            height: number;
            reencoded: boolean;
            source: {
                size: number;
                width: number;
                height: number;
                duration: number;
            };
        };
        VideoClipJob: {
            id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "video-clip";
            /** @enum {string} */
            status: "queued" | "processing" | "completed" | "failed" | "cancelled";
            priority: number;
            progress: number | null;
            createdAt: string;
            startedAt?: string;
            completedAt?: string;
            /** @description Completed jobs only. Every `url` is a signed link valid for one hour, with `expiresAt` beside it. */
            result?: components["schemas"]["VideoClipResult"];
            error?: components["schemas"]["JobFailure"];
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata: {
                [key: string]: string;
            };
            timings: {
                /** @description Created until its first attempt started (waiting for a concurrency slot and a processor). */
                queuedMs: number | null;
                /** @description The first attempt's start until the last one's: earlier attempts that did not end the job, and their wait for a processor; 0 when the first attempt ended it. */
                retriesMs: number | null;
                /** @description The last attempt's start sent to the processor until the processor took it and began the work, a container's cold start included. */
                startMs: number | null;
                /** @description The processor's read of the input before its tool starts, in the last attempt: the whole download, or for a type that reads as it goes (video) only the first range. */
                fetchInputMs: number | null;
                /** @description The processing itself (probe, tools, outputs written), in the last attempt. */
                processMs: number | null;
                /** @description Outputs moved from the processor into storage. */
                storeOutputMs: number | null;
                /** @description The processor's end (tools done, outputs stored) until the job's end was recorded: the news of the end reaching the service. */
                reportMs: number | null;
                /** @description Present when the encode ran in chunks on several seats (docs/fanout.md): processMs is then the stitch's. */
                fanout?: {
                    /** @description Chunks the video was cut into, each encoded on a seat of its own. */
                    chunks: number;
                    /** @description The most parts (chunks and the audio) that ran at once. */
                    seats: number;
                    /** @description The longest chunk's attempt, its start sent until its end recorded. */
                    longestChunkMs: number;
                    /** @description The first part's start until the last part's end. */
                    partsMs: number;
                    /** @description The stitch (joining and checking the chunks) on its processor; null until it ran. */
                    stitchMs: number | null;
                };
            };
            store?: components["schemas"]["JobStore"];
            /** @description When the job's stream became playable, before the job completed (videoAdaptive: docs/job-types.md). Absent until then, and on failed or cancelled jobs. */
            playableAt?: string;
            /** @description The stream a player can start from while the job still runs; present with `playableAt`, on processing and completed jobs. */
            playable?: {
                /** @description The master playlist (`…/master.m3u8`), signed for its folder as a result's `url` is: the playlists and segments it names resolve under it. It names only renditions whose files are stored, and grows as the others are; no file it names changes. */
                url: string;
                /** @description When the link expires (one hour); read the job again for a fresh one. */
                expiresAt: string;
            };
        };
        VideoConcatResult: {
            url: string;
            expiresAt: string;
            size: number;
            duration: number;
            width: number;
            height: number;
            fps: number;
            inputs: {
                duration: number;
                width: number;
                height: number;
                audio: boolean;
            }[];
        };
        VideoConcatJob: {
            id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "video-concat";
            /** @enum {string} */
            status: "queued" | "processing" | "completed" | "failed" | "cancelled";
            priority: number;
            progress: number | null;
            createdAt: string;
            startedAt?: string;
            completedAt?: string;
            /** @description Completed jobs only. Every `url` is a signed link valid for one hour, with `expiresAt` beside it. */
            result?: components["schemas"]["VideoConcatResult"];
            error?: components["schemas"]["JobFailure"];
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata: {
                [key: string]: string;
            };
            timings: {
                /** @description Created until its first attempt started (waiting for a concurrency slot and a processor). */
                queuedMs: number | null;
                /** @description The first attempt's start until the last one's: earlier attempts that did not end the job, and their wait for a processor; 0 when the first attempt ended it. */
                retriesMs: number | null;
                /** @description The last attempt's start sent to the processor until the processor took it and began the work, a container's cold start included. */
                startMs: number | null;
                /** @description The processor's read of the input before its tool starts, in the last attempt: the whole download, or for a type that reads as it goes (video) only the first range. */
                fetchInputMs: number | null;
                /** @description The processing itself (probe, tools, outputs written), in the last attempt. */
                processMs: number | null;
                /** @description Outputs moved from the processor into storage. */
                storeOutputMs: number | null;
                /** @description The processor's end (tools done, outputs stored) until the job's end was recorded: the news of the end reaching the service. */
                reportMs: number | null;
                /** @description Present when the encode ran in chunks on several seats (docs/fanout.md): processMs is then the stitch's. */
                fanout?: {
                    /** @description Chunks the video was cut into, each encoded on a seat of its own. */
                    chunks: number;
                    /** @description The most parts (chunks and the audio) that ran at once. */
                    seats: number;
                    /** @description The longest chunk's attempt, its start sent until its end recorded. */
                    longestChunkMs: number;
                    /** @description The first part's start until the last part's end. */
                    partsMs: number;
                    /** @description The stitch (joining and checking the chunks) on its processor; null until it ran. */
                    stitchMs: number | null;
                };
            };
            store?: components["schemas"]["JobStore"];
            /** @description When the job's stream became playable, before the job completed (videoAdaptive: docs/job-types.md). Absent until then, and on failed or cancelled jobs. */
            playableAt?: string;
            /** @description The stream a player can start from while the job still runs; present with `playableAt`, on processing and completed jobs. */
            playable?: {
                /** @description The master playlist (`…/master.m3u8`), signed for its folder as a result's `url` is: the playlists and segments it names resolve under it. It names only renditions whose files are stored, and grows as the others are; no file it names changes. */
                url: string;
                /** @description When the link expires (one hour); read the job again for a fresh one. */
                expiresAt: string;
            };
        };
        CompressVideoCompletedSdkJob: {
            id: string;
            priority: number;
            progress: number | null;
            createdAt: string;
            startedAt?: string;
            completedAt?: string;
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata: {
                [key: string]: string;
            };
            timings: {
                /** @description Created until its first attempt started (waiting for a concurrency slot and a processor). */
                queuedMs: number | null;
                /** @description The first attempt's start until the last one's: earlier attempts that did not end the job, and their wait for a processor; 0 when the first attempt ended it. */
                retriesMs: number | null;
                /** @description The last attempt's start sent to the processor until the processor took it and began the work, a container's cold start included. */
                startMs: number | null;
                /** @description The processor's read of the input before its tool starts, in the last attempt: the whole download, or for a type that reads as it goes (video) only the first range. */
                fetchInputMs: number | null;
                /** @description The processing itself (probe, tools, outputs written), in the last attempt. */
                processMs: number | null;
                /** @description Outputs moved from the processor into storage. */
                storeOutputMs: number | null;
                /** @description The processor's end (tools done, outputs stored) until the job's end was recorded: the news of the end reaching the service. */
                reportMs: number | null;
                /** @description Present when the encode ran in chunks on several seats (docs/fanout.md): processMs is then the stitch's. */
                fanout?: {
                    /** @description Chunks the video was cut into, each encoded on a seat of its own. */
                    chunks: number;
                    /** @description The most parts (chunks and the audio) that ran at once. */
                    seats: number;
                    /** @description The longest chunk's attempt, its start sent until its end recorded. */
                    longestChunkMs: number;
                    /** @description The first part's start until the last part's end. */
                    partsMs: number;
                    /** @description The stitch (joining and checking the chunks) on its processor; null until it ran. */
                    stitchMs: number | null;
                };
            };
            store?: components["schemas"]["JobStore"];
            /** @description When the job's stream became playable, before the job completed (videoAdaptive: docs/job-types.md). Absent until then, and on failed or cancelled jobs. */
            playableAt?: string;
            /** @description The stream a player can start from while the job still runs; present with `playableAt`, on processing and completed jobs. */
            playable?: {
                /** @description The master playlist (`…/master.m3u8`), signed for its folder as a result's `url` is: the playlists and segments it names resolve under it. It names only renditions whose files are stored, and grows as the others are; no file it names changes. */
                url: string;
                /** @description When the link expires (one hour); read the job again for a fresh one. */
                expiresAt: string;
            };
            /** @description The failure's message when failed, otherwise null. */
            error: string | null;
            /** @description The failure's code when failed, otherwise null. */
            errorCode: ("input_unreachable" | "input_too_large" | "unsupported_media" | "corrupt_media" | "encrypted_media" | "no_audio_stream" | "no_video_stream" | "duration_limit_exceeded" | "invalid_input" | "watermark_unavailable" | "watermark_invalid" | "processing_timeout" | "resource_limit_exceeded" | "processing_interrupted" | "invalid_result" | "processing_failed") | null;
            /** @constant */
            type: "compressVideo";
            /** @constant */
            status: "completed";
            url: string;
            expiresAt: string;
            size: number;
            width: number;
            height: number;
            duration: number;
            /** @enum {string} */
            format: "mp4" | "webm";
            /** @enum {string} */
            codec: "h264" | "h265" | "vp9" | "av1";
            bitrate: string;
            compressionRatio: number;
            source: {
                size: number;
                width: number;
                height: number;
                duration: number;
            };
        };
        CompressImageCompletedSdkJob: {
            id: string;
            priority: number;
            progress: number | null;
            createdAt: string;
            startedAt?: string;
            completedAt?: string;
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata: {
                [key: string]: string;
            };
            timings: {
                /** @description Created until its first attempt started (waiting for a concurrency slot and a processor). */
                queuedMs: number | null;
                /** @description The first attempt's start until the last one's: earlier attempts that did not end the job, and their wait for a processor; 0 when the first attempt ended it. */
                retriesMs: number | null;
                /** @description The last attempt's start sent to the processor until the processor took it and began the work, a container's cold start included. */
                startMs: number | null;
                /** @description The processor's read of the input before its tool starts, in the last attempt: the whole download, or for a type that reads as it goes (video) only the first range. */
                fetchInputMs: number | null;
                /** @description The processing itself (probe, tools, outputs written), in the last attempt. */
                processMs: number | null;
                /** @description Outputs moved from the processor into storage. */
                storeOutputMs: number | null;
                /** @description The processor's end (tools done, outputs stored) until the job's end was recorded: the news of the end reaching the service. */
                reportMs: number | null;
                /** @description Present when the encode ran in chunks on several seats (docs/fanout.md): processMs is then the stitch's. */
                fanout?: {
                    /** @description Chunks the video was cut into, each encoded on a seat of its own. */
                    chunks: number;
                    /** @description The most parts (chunks and the audio) that ran at once. */
                    seats: number;
                    /** @description The longest chunk's attempt, its start sent until its end recorded. */
                    longestChunkMs: number;
                    /** @description The first part's start until the last part's end. */
                    partsMs: number;
                    /** @description The stitch (joining and checking the chunks) on its processor; null until it ran. */
                    stitchMs: number | null;
                };
            };
            store?: components["schemas"]["JobStore"];
            /** @description When the job's stream became playable, before the job completed (videoAdaptive: docs/job-types.md). Absent until then, and on failed or cancelled jobs. */
            playableAt?: string;
            /** @description The stream a player can start from while the job still runs; present with `playableAt`, on processing and completed jobs. */
            playable?: {
                /** @description The master playlist (`…/master.m3u8`), signed for its folder as a result's `url` is: the playlists and segments it names resolve under it. It names only renditions whose files are stored, and grows as the others are; no file it names changes. */
                url: string;
                /** @description When the link expires (one hour); read the job again for a fresh one. */
                expiresAt: string;
            };
            /** @description The failure's message when failed, otherwise null. */
            error: string | null;
            /** @description The failure's code when failed, otherwise null. */
            errorCode: ("input_unreachable" | "input_too_large" | "unsupported_media" | "corrupt_media" | "encrypted_media" | "no_audio_stream" | "no_video_stream" | "duration_limit_exceeded" | "invalid_input" | "watermark_unavailable" | "watermark_invalid" | "processing_timeout" | "resource_limit_exceeded" | "processing_interrupted" | "invalid_result" | "processing_failed") | null;
            /** @constant */
            type: "compressImage";
            /** @constant */
            status: "completed";
            url: string;
            expiresAt: string;
            size: number;
            width: number;
            height: number;
            /** @enum {string} */
            format: "jpg" | "png" | "webp" | "avif";
            compressionRatio: number;
            keptOriginal: boolean;
            source: {
                size: number;
                width: number;
                height: number;
                format: string;
            };
        };
        CompressPdfCompletedSdkJob: {
            id: string;
            priority: number;
            progress: number | null;
            createdAt: string;
            startedAt?: string;
            completedAt?: string;
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata: {
                [key: string]: string;
            };
            timings: {
                /** @description Created until its first attempt started (waiting for a concurrency slot and a processor). */
                queuedMs: number | null;
                /** @description The first attempt's start until the last one's: earlier attempts that did not end the job, and their wait for a processor; 0 when the first attempt ended it. */
                retriesMs: number | null;
                /** @description The last attempt's start sent to the processor until the processor took it and began the work, a container's cold start included. */
                startMs: number | null;
                /** @description The processor's read of the input before its tool starts, in the last attempt: the whole download, or for a type that reads as it goes (video) only the first range. */
                fetchInputMs: number | null;
                /** @description The processing itself (probe, tools, outputs written), in the last attempt. */
                processMs: number | null;
                /** @description Outputs moved from the processor into storage. */
                storeOutputMs: number | null;
                /** @description The processor's end (tools done, outputs stored) until the job's end was recorded: the news of the end reaching the service. */
                reportMs: number | null;
                /** @description Present when the encode ran in chunks on several seats (docs/fanout.md): processMs is then the stitch's. */
                fanout?: {
                    /** @description Chunks the video was cut into, each encoded on a seat of its own. */
                    chunks: number;
                    /** @description The most parts (chunks and the audio) that ran at once. */
                    seats: number;
                    /** @description The longest chunk's attempt, its start sent until its end recorded. */
                    longestChunkMs: number;
                    /** @description The first part's start until the last part's end. */
                    partsMs: number;
                    /** @description The stitch (joining and checking the chunks) on its processor; null until it ran. */
                    stitchMs: number | null;
                };
            };
            store?: components["schemas"]["JobStore"];
            /** @description When the job's stream became playable, before the job completed (videoAdaptive: docs/job-types.md). Absent until then, and on failed or cancelled jobs. */
            playableAt?: string;
            /** @description The stream a player can start from while the job still runs; present with `playableAt`, on processing and completed jobs. */
            playable?: {
                /** @description The master playlist (`…/master.m3u8`), signed for its folder as a result's `url` is: the playlists and segments it names resolve under it. It names only renditions whose files are stored, and grows as the others are; no file it names changes. */
                url: string;
                /** @description When the link expires (one hour); read the job again for a fresh one. */
                expiresAt: string;
            };
            /** @description The failure's message when failed, otherwise null. */
            error: string | null;
            /** @description The failure's code when failed, otherwise null. */
            errorCode: ("input_unreachable" | "input_too_large" | "unsupported_media" | "corrupt_media" | "encrypted_media" | "no_audio_stream" | "no_video_stream" | "duration_limit_exceeded" | "invalid_input" | "watermark_unavailable" | "watermark_invalid" | "processing_timeout" | "resource_limit_exceeded" | "processing_interrupted" | "invalid_result" | "processing_failed") | null;
            /** @constant */
            type: "compressPdf";
            /** @constant */
            status: "completed";
            url: string;
            expiresAt: string;
            size: number;
            /** @constant */
            format: "pdf";
            compressionRatio: number;
            pages: number;
            keptOriginal: boolean;
            source: {
                size: number;
                pages: number;
            };
        };
        VideoThumbnailCompletedSdkJob: {
            id: string;
            priority: number;
            progress: number | null;
            createdAt: string;
            startedAt?: string;
            completedAt?: string;
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata: {
                [key: string]: string;
            };
            timings: {
                /** @description Created until its first attempt started (waiting for a concurrency slot and a processor). */
                queuedMs: number | null;
                /** @description The first attempt's start until the last one's: earlier attempts that did not end the job, and their wait for a processor; 0 when the first attempt ended it. */
                retriesMs: number | null;
                /** @description The last attempt's start sent to the processor until the processor took it and began the work, a container's cold start included. */
                startMs: number | null;
                /** @description The processor's read of the input before its tool starts, in the last attempt: the whole download, or for a type that reads as it goes (video) only the first range. */
                fetchInputMs: number | null;
                /** @description The processing itself (probe, tools, outputs written), in the last attempt. */
                processMs: number | null;
                /** @description Outputs moved from the processor into storage. */
                storeOutputMs: number | null;
                /** @description The processor's end (tools done, outputs stored) until the job's end was recorded: the news of the end reaching the service. */
                reportMs: number | null;
                /** @description Present when the encode ran in chunks on several seats (docs/fanout.md): processMs is then the stitch's. */
                fanout?: {
                    /** @description Chunks the video was cut into, each encoded on a seat of its own. */
                    chunks: number;
                    /** @description The most parts (chunks and the audio) that ran at once. */
                    seats: number;
                    /** @description The longest chunk's attempt, its start sent until its end recorded. */
                    longestChunkMs: number;
                    /** @description The first part's start until the last part's end. */
                    partsMs: number;
                    /** @description The stitch (joining and checking the chunks) on its processor; null until it ran. */
                    stitchMs: number | null;
                };
            };
            store?: components["schemas"]["JobStore"];
            /** @description When the job's stream became playable, before the job completed (videoAdaptive: docs/job-types.md). Absent until then, and on failed or cancelled jobs. */
            playableAt?: string;
            /** @description The stream a player can start from while the job still runs; present with `playableAt`, on processing and completed jobs. */
            playable?: {
                /** @description The master playlist (`…/master.m3u8`), signed for its folder as a result's `url` is: the playlists and segments it names resolve under it. It names only renditions whose files are stored, and grows as the others are; no file it names changes. */
                url: string;
                /** @description When the link expires (one hour); read the job again for a fresh one. */
                expiresAt: string;
            };
            /** @description The failure's message when failed, otherwise null. */
            error: string | null;
            /** @description The failure's code when failed, otherwise null. */
            errorCode: ("input_unreachable" | "input_too_large" | "unsupported_media" | "corrupt_media" | "encrypted_media" | "no_audio_stream" | "no_video_stream" | "duration_limit_exceeded" | "invalid_input" | "watermark_unavailable" | "watermark_invalid" | "processing_timeout" | "resource_limit_exceeded" | "processing_interrupted" | "invalid_result" | "processing_failed") | null;
            /** @constant */
            type: "videoThumbnail";
            /** @constant */
            status: "completed";
            url: string;
            expiresAt: string;
            size: number;
            width: number;
            height: number;
            /** @enum {string} */
            format: "jpg" | "png" | "webp";
            timestamp: number;
            source: {
                size: number;
                width: number;
                height: number;
                duration: number;
            };
        };
        ExtractAudioCompletedSdkJob: {
            id: string;
            priority: number;
            progress: number | null;
            createdAt: string;
            startedAt?: string;
            completedAt?: string;
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata: {
                [key: string]: string;
            };
            timings: {
                /** @description Created until its first attempt started (waiting for a concurrency slot and a processor). */
                queuedMs: number | null;
                /** @description The first attempt's start until the last one's: earlier attempts that did not end the job, and their wait for a processor; 0 when the first attempt ended it. */
                retriesMs: number | null;
                /** @description The last attempt's start sent to the processor until the processor took it and began the work, a container's cold start included. */
                startMs: number | null;
                /** @description The processor's read of the input before its tool starts, in the last attempt: the whole download, or for a type that reads as it goes (video) only the first range. */
                fetchInputMs: number | null;
                /** @description The processing itself (probe, tools, outputs written), in the last attempt. */
                processMs: number | null;
                /** @description Outputs moved from the processor into storage. */
                storeOutputMs: number | null;
                /** @description The processor's end (tools done, outputs stored) until the job's end was recorded: the news of the end reaching the service. */
                reportMs: number | null;
                /** @description Present when the encode ran in chunks on several seats (docs/fanout.md): processMs is then the stitch's. */
                fanout?: {
                    /** @description Chunks the video was cut into, each encoded on a seat of its own. */
                    chunks: number;
                    /** @description The most parts (chunks and the audio) that ran at once. */
                    seats: number;
                    /** @description The longest chunk's attempt, its start sent until its end recorded. */
                    longestChunkMs: number;
                    /** @description The first part's start until the last part's end. */
                    partsMs: number;
                    /** @description The stitch (joining and checking the chunks) on its processor; null until it ran. */
                    stitchMs: number | null;
                };
            };
            store?: components["schemas"]["JobStore"];
            /** @description When the job's stream became playable, before the job completed (videoAdaptive: docs/job-types.md). Absent until then, and on failed or cancelled jobs. */
            playableAt?: string;
            /** @description The stream a player can start from while the job still runs; present with `playableAt`, on processing and completed jobs. */
            playable?: {
                /** @description The master playlist (`…/master.m3u8`), signed for its folder as a result's `url` is: the playlists and segments it names resolve under it. It names only renditions whose files are stored, and grows as the others are; no file it names changes. */
                url: string;
                /** @description When the link expires (one hour); read the job again for a fresh one. */
                expiresAt: string;
            };
            /** @description The failure's message when failed, otherwise null. */
            error: string | null;
            /** @description The failure's code when failed, otherwise null. */
            errorCode: ("input_unreachable" | "input_too_large" | "unsupported_media" | "corrupt_media" | "encrypted_media" | "no_audio_stream" | "no_video_stream" | "duration_limit_exceeded" | "invalid_input" | "watermark_unavailable" | "watermark_invalid" | "processing_timeout" | "resource_limit_exceeded" | "processing_interrupted" | "invalid_result" | "processing_failed") | null;
            /** @constant */
            type: "extractAudio";
            /** @constant */
            status: "completed";
            url: string;
            expiresAt: string;
            size: number;
            duration: number;
            /** @enum {string} */
            format: "mp3" | "aac" | "opus" | "flac" | "wav";
            bitrate: string;
            loudness?: {
                before: {
                    integratedLufs: number;
                    truePeakDb: number;
                    lra: number;
                } | null;
                after: {
                    integratedLufs: number;
                    truePeakDb: number;
                    lra: number;
                } | null;
                /** @enum {string} */
                mode: "linear" | "dynamic" | "none";
            };
            source: {
                size: number;
                duration: number;
                audioBitrate: number | null;
                audioCodec: string;
            };
        };
        AudioWaveformCompletedSdkJob: {
            id: string;
            priority: number;
            progress: number | null;
            createdAt: string;
            startedAt?: string;
            completedAt?: string;
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata: {
                [key: string]: string;
            };
            timings: {
                /** @description Created until its first attempt started (waiting for a concurrency slot and a processor). */
                queuedMs: number | null;
                /** @description The first attempt's start until the last one's: earlier attempts that did not end the job, and their wait for a processor; 0 when the first attempt ended it. */
                retriesMs: number | null;
                /** @description The last attempt's start sent to the processor until the processor took it and began the work, a container's cold start included. */
                startMs: number | null;
                /** @description The processor's read of the input before its tool starts, in the last attempt: the whole download, or for a type that reads as it goes (video) only the first range. */
                fetchInputMs: number | null;
                /** @description The processing itself (probe, tools, outputs written), in the last attempt. */
                processMs: number | null;
                /** @description Outputs moved from the processor into storage. */
                storeOutputMs: number | null;
                /** @description The processor's end (tools done, outputs stored) until the job's end was recorded: the news of the end reaching the service. */
                reportMs: number | null;
                /** @description Present when the encode ran in chunks on several seats (docs/fanout.md): processMs is then the stitch's. */
                fanout?: {
                    /** @description Chunks the video was cut into, each encoded on a seat of its own. */
                    chunks: number;
                    /** @description The most parts (chunks and the audio) that ran at once. */
                    seats: number;
                    /** @description The longest chunk's attempt, its start sent until its end recorded. */
                    longestChunkMs: number;
                    /** @description The first part's start until the last part's end. */
                    partsMs: number;
                    /** @description The stitch (joining and checking the chunks) on its processor; null until it ran. */
                    stitchMs: number | null;
                };
            };
            store?: components["schemas"]["JobStore"];
            /** @description When the job's stream became playable, before the job completed (videoAdaptive: docs/job-types.md). Absent until then, and on failed or cancelled jobs. */
            playableAt?: string;
            /** @description The stream a player can start from while the job still runs; present with `playableAt`, on processing and completed jobs. */
            playable?: {
                /** @description The master playlist (`…/master.m3u8`), signed for its folder as a result's `url` is: the playlists and segments it names resolve under it. It names only renditions whose files are stored, and grows as the others are; no file it names changes. */
                url: string;
                /** @description When the link expires (one hour); read the job again for a fresh one. */
                expiresAt: string;
            };
            /** @description The failure's message when failed, otherwise null. */
            error: string | null;
            /** @description The failure's code when failed, otherwise null. */
            errorCode: ("input_unreachable" | "input_too_large" | "unsupported_media" | "corrupt_media" | "encrypted_media" | "no_audio_stream" | "no_video_stream" | "duration_limit_exceeded" | "invalid_input" | "watermark_unavailable" | "watermark_invalid" | "processing_timeout" | "resource_limit_exceeded" | "processing_interrupted" | "invalid_result" | "processing_failed") | null;
            /** @constant */
            type: "audioWaveform";
            /** @constant */
            status: "completed";
            url: string;
            expiresAt: string;
            size: number;
            width: number;
            height: number;
            /** @constant */
            format: "png";
            peaks: {
                url: string;
                expiresAt: string;
                size: number;
                length: number;
                sampleRate: number;
                samplesPerPixel: number;
                /** @constant */
                bits: 8;
            };
            duration: number;
            source: {
                size: number;
                duration: number;
                audioBitrate: number | null;
                audioCodec: string;
            };
        };
        VideoExtractionCompletedSdkJob: {
            id: string;
            priority: number;
            progress: number | null;
            createdAt: string;
            startedAt?: string;
            completedAt?: string;
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata: {
                [key: string]: string;
            };
            timings: {
                /** @description Created until its first attempt started (waiting for a concurrency slot and a processor). */
                queuedMs: number | null;
                /** @description The first attempt's start until the last one's: earlier attempts that did not end the job, and their wait for a processor; 0 when the first attempt ended it. */
                retriesMs: number | null;
                /** @description The last attempt's start sent to the processor until the processor took it and began the work, a container's cold start included. */
                startMs: number | null;
                /** @description The processor's read of the input before its tool starts, in the last attempt: the whole download, or for a type that reads as it goes (video) only the first range. */
                fetchInputMs: number | null;
                /** @description The processing itself (probe, tools, outputs written), in the last attempt. */
                processMs: number | null;
                /** @description Outputs moved from the processor into storage. */
                storeOutputMs: number | null;
                /** @description The processor's end (tools done, outputs stored) until the job's end was recorded: the news of the end reaching the service. */
                reportMs: number | null;
                /** @description Present when the encode ran in chunks on several seats (docs/fanout.md): processMs is then the stitch's. */
                fanout?: {
                    /** @description Chunks the video was cut into, each encoded on a seat of its own. */
                    chunks: number;
                    /** @description The most parts (chunks and the audio) that ran at once. */
                    seats: number;
                    /** @description The longest chunk's attempt, its start sent until its end recorded. */
                    longestChunkMs: number;
                    /** @description The first part's start until the last part's end. */
                    partsMs: number;
                    /** @description The stitch (joining and checking the chunks) on its processor; null until it ran. */
                    stitchMs: number | null;
                };
            };
            store?: components["schemas"]["JobStore"];
            /** @description When the job's stream became playable, before the job completed (videoAdaptive: docs/job-types.md). Absent until then, and on failed or cancelled jobs. */
            playableAt?: string;
            /** @description The stream a player can start from while the job still runs; present with `playableAt`, on processing and completed jobs. */
            playable?: {
                /** @description The master playlist (`…/master.m3u8`), signed for its folder as a result's `url` is: the playlists and segments it names resolve under it. It names only renditions whose files are stored, and grows as the others are; no file it names changes. */
                url: string;
                /** @description When the link expires (one hour); read the job again for a fresh one. */
                expiresAt: string;
            };
            /** @description The failure's message when failed, otherwise null. */
            error: string | null;
            /** @description The failure's code when failed, otherwise null. */
            errorCode: ("input_unreachable" | "input_too_large" | "unsupported_media" | "corrupt_media" | "encrypted_media" | "no_audio_stream" | "no_video_stream" | "duration_limit_exceeded" | "invalid_input" | "watermark_unavailable" | "watermark_invalid" | "processing_timeout" | "resource_limit_exceeded" | "processing_interrupted" | "invalid_result" | "processing_failed") | null;
            /** @constant */
            type: "videoExtraction";
            /** @constant */
            status: "completed";
            audio: {
                url: string;
                expiresAt: string;
                size: number;
                duration: number;
                /** @constant */
                format: "mp3";
                bitrate: string;
            } | null;
            frames: {
                url: string;
                expiresAt: string;
                size: number;
                width: number;
                height: number;
                /** @enum {string} */
                format: "jpg" | "png" | "webp";
                timestamp: number;
            }[];
            source: {
                size: number;
                duration: number;
                width: number;
                height: number;
                format: string;
                hasAudio: boolean;
            };
        };
        VideoStoryboardCompletedSdkJob: {
            id: string;
            priority: number;
            progress: number | null;
            createdAt: string;
            startedAt?: string;
            completedAt?: string;
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata: {
                [key: string]: string;
            };
            timings: {
                /** @description Created until its first attempt started (waiting for a concurrency slot and a processor). */
                queuedMs: number | null;
                /** @description The first attempt's start until the last one's: earlier attempts that did not end the job, and their wait for a processor; 0 when the first attempt ended it. */
                retriesMs: number | null;
                /** @description The last attempt's start sent to the processor until the processor took it and began the work, a container's cold start included. */
                startMs: number | null;
                /** @description The processor's read of the input before its tool starts, in the last attempt: the whole download, or for a type that reads as it goes (video) only the first range. */
                fetchInputMs: number | null;
                /** @description The processing itself (probe, tools, outputs written), in the last attempt. */
                processMs: number | null;
                /** @description Outputs moved from the processor into storage. */
                storeOutputMs: number | null;
                /** @description The processor's end (tools done, outputs stored) until the job's end was recorded: the news of the end reaching the service. */
                reportMs: number | null;
                /** @description Present when the encode ran in chunks on several seats (docs/fanout.md): processMs is then the stitch's. */
                fanout?: {
                    /** @description Chunks the video was cut into, each encoded on a seat of its own. */
                    chunks: number;
                    /** @description The most parts (chunks and the audio) that ran at once. */
                    seats: number;
                    /** @description The longest chunk's attempt, its start sent until its end recorded. */
                    longestChunkMs: number;
                    /** @description The first part's start until the last part's end. */
                    partsMs: number;
                    /** @description The stitch (joining and checking the chunks) on its processor; null until it ran. */
                    stitchMs: number | null;
                };
            };
            store?: components["schemas"]["JobStore"];
            /** @description When the job's stream became playable, before the job completed (videoAdaptive: docs/job-types.md). Absent until then, and on failed or cancelled jobs. */
            playableAt?: string;
            /** @description The stream a player can start from while the job still runs; present with `playableAt`, on processing and completed jobs. */
            playable?: {
                /** @description The master playlist (`…/master.m3u8`), signed for its folder as a result's `url` is: the playlists and segments it names resolve under it. It names only renditions whose files are stored, and grows as the others are; no file it names changes. */
                url: string;
                /** @description When the link expires (one hour); read the job again for a fresh one. */
                expiresAt: string;
            };
            /** @description The failure's message when failed, otherwise null. */
            error: string | null;
            /** @description The failure's code when failed, otherwise null. */
            errorCode: ("input_unreachable" | "input_too_large" | "unsupported_media" | "corrupt_media" | "encrypted_media" | "no_audio_stream" | "no_video_stream" | "duration_limit_exceeded" | "invalid_input" | "watermark_unavailable" | "watermark_invalid" | "processing_timeout" | "resource_limit_exceeded" | "processing_interrupted" | "invalid_result" | "processing_failed") | null;
            /** @constant */
            type: "videoStoryboard";
            /** @constant */
            status: "completed";
            url: string;
            expiresAt: string;
            size: number;
            sprite: {
                url: string;
                expiresAt: string;
                size: number;
                width: number;
                height: number;
                /** @enum {string} */
                format: "jpg" | "webp";
            };
            tile: {
                width: number;
                height: number;
                columns: number;
                rows: number;
                count: number;
                interval: number;
            };
            duration: number;
            source: {
                size: number;
                duration: number;
                width: number;
                height: number;
                format: string;
                hasAudio: boolean;
            };
        };
        VideoPreviewCompletedSdkJob: {
            id: string;
            priority: number;
            progress: number | null;
            createdAt: string;
            startedAt?: string;
            completedAt?: string;
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata: {
                [key: string]: string;
            };
            timings: {
                /** @description Created until its first attempt started (waiting for a concurrency slot and a processor). */
                queuedMs: number | null;
                /** @description The first attempt's start until the last one's: earlier attempts that did not end the job, and their wait for a processor; 0 when the first attempt ended it. */
                retriesMs: number | null;
                /** @description The last attempt's start sent to the processor until the processor took it and began the work, a container's cold start included. */
                startMs: number | null;
                /** @description The processor's read of the input before its tool starts, in the last attempt: the whole download, or for a type that reads as it goes (video) only the first range. */
                fetchInputMs: number | null;
                /** @description The processing itself (probe, tools, outputs written), in the last attempt. */
                processMs: number | null;
                /** @description Outputs moved from the processor into storage. */
                storeOutputMs: number | null;
                /** @description The processor's end (tools done, outputs stored) until the job's end was recorded: the news of the end reaching the service. */
                reportMs: number | null;
                /** @description Present when the encode ran in chunks on several seats (docs/fanout.md): processMs is then the stitch's. */
                fanout?: {
                    /** @description Chunks the video was cut into, each encoded on a seat of its own. */
                    chunks: number;
                    /** @description The most parts (chunks and the audio) that ran at once. */
                    seats: number;
                    /** @description The longest chunk's attempt, its start sent until its end recorded. */
                    longestChunkMs: number;
                    /** @description The first part's start until the last part's end. */
                    partsMs: number;
                    /** @description The stitch (joining and checking the chunks) on its processor; null until it ran. */
                    stitchMs: number | null;
                };
            };
            store?: components["schemas"]["JobStore"];
            /** @description When the job's stream became playable, before the job completed (videoAdaptive: docs/job-types.md). Absent until then, and on failed or cancelled jobs. */
            playableAt?: string;
            /** @description The stream a player can start from while the job still runs; present with `playableAt`, on processing and completed jobs. */
            playable?: {
                /** @description The master playlist (`…/master.m3u8`), signed for its folder as a result's `url` is: the playlists and segments it names resolve under it. It names only renditions whose files are stored, and grows as the others are; no file it names changes. */
                url: string;
                /** @description When the link expires (one hour); read the job again for a fresh one. */
                expiresAt: string;
            };
            /** @description The failure's message when failed, otherwise null. */
            error: string | null;
            /** @description The failure's code when failed, otherwise null. */
            errorCode: ("input_unreachable" | "input_too_large" | "unsupported_media" | "corrupt_media" | "encrypted_media" | "no_audio_stream" | "no_video_stream" | "duration_limit_exceeded" | "invalid_input" | "watermark_unavailable" | "watermark_invalid" | "processing_timeout" | "resource_limit_exceeded" | "processing_interrupted" | "invalid_result" | "processing_failed") | null;
            /** @constant */
            type: "videoPreview";
            /** @constant */
            status: "completed";
            url: string;
            expiresAt: string;
            size: number;
            width: number;
            height: number;
            /** @enum {string} */
            format: "webp" | "gif" | "mp4";
            duration: number;
            frameRate: number;
            frames: number;
            start: number;
            segments?: {
                start: number;
                duration: number;
            }[];
            source: {
                size: number;
                duration: number;
                width: number;
                height: number;
                format: string;
                hasAudio: boolean;
            };
        };
        VideoAdaptiveCompletedSdkJob: {
            id: string;
            priority: number;
            progress: number | null;
            createdAt: string;
            startedAt?: string;
            completedAt?: string;
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata: {
                [key: string]: string;
            };
            timings: {
                /** @description Created until its first attempt started (waiting for a concurrency slot and a processor). */
                queuedMs: number | null;
                /** @description The first attempt's start until the last one's: earlier attempts that did not end the job, and their wait for a processor; 0 when the first attempt ended it. */
                retriesMs: number | null;
                /** @description The last attempt's start sent to the processor until the processor took it and began the work, a container's cold start included. */
                startMs: number | null;
                /** @description The processor's read of the input before its tool starts, in the last attempt: the whole download, or for a type that reads as it goes (video) only the first range. */
                fetchInputMs: number | null;
                /** @description The processing itself (probe, tools, outputs written), in the last attempt. */
                processMs: number | null;
                /** @description Outputs moved from the processor into storage. */
                storeOutputMs: number | null;
                /** @description The processor's end (tools done, outputs stored) until the job's end was recorded: the news of the end reaching the service. */
                reportMs: number | null;
                /** @description Present when the encode ran in chunks on several seats (docs/fanout.md): processMs is then the stitch's. */
                fanout?: {
                    /** @description Chunks the video was cut into, each encoded on a seat of its own. */
                    chunks: number;
                    /** @description The most parts (chunks and the audio) that ran at once. */
                    seats: number;
                    /** @description The longest chunk's attempt, its start sent until its end recorded. */
                    longestChunkMs: number;
                    /** @description The first part's start until the last part's end. */
                    partsMs: number;
                    /** @description The stitch (joining and checking the chunks) on its processor; null until it ran. */
                    stitchMs: number | null;
                };
            };
            store?: components["schemas"]["JobStore"];
            /** @description When the job's stream became playable, before the job completed (videoAdaptive: docs/job-types.md). Absent until then, and on failed or cancelled jobs. */
            playableAt?: string;
            /** @description The stream a player can start from while the job still runs; present with `playableAt`, on processing and completed jobs. */
            playable?: {
                /** @description The master playlist (`…/master.m3u8`), signed for its folder as a result's `url` is: the playlists and segments it names resolve under it. It names only renditions whose files are stored, and grows as the others are; no file it names changes. */
                url: string;
                /** @description When the link expires (one hour); read the job again for a fresh one. */
                expiresAt: string;
            };
            /** @description The failure's message when failed, otherwise null. */
            error: string | null;
            /** @description The failure's code when failed, otherwise null. */
            errorCode: ("input_unreachable" | "input_too_large" | "unsupported_media" | "corrupt_media" | "encrypted_media" | "no_audio_stream" | "no_video_stream" | "duration_limit_exceeded" | "invalid_input" | "watermark_unavailable" | "watermark_invalid" | "processing_timeout" | "resource_limit_exceeded" | "processing_interrupted" | "invalid_result" | "processing_failed") | null;
            /** @constant */
            type: "videoAdaptive";
            /** @constant */
            status: "completed";
            url: string;
            expiresAt: string;
            size: number;
            dash: {
                url: string;
                expiresAt: string;
                size: number;
            } | null;
            mp4: {
                url: string;
                expiresAt: string;
                size: number;
                width: number;
                height: number;
                bitrate: string;
            } | null;
            renditions: {
                url: string;
                expiresAt: string;
                size: number;
                width: number;
                height: number;
                bandwidth: number;
                averageBandwidth: number;
                codecs: string;
                frameRate: number;
            }[];
            totalSize: number;
            duration: number;
            segmentDuration: number;
            source: {
                size: number;
                duration: number;
                width: number;
                height: number;
                format: string;
                hasAudio: boolean;
            };
        };
        VideoClipCompletedSdkJob: {
            id: string;
            priority: number;
            progress: number | null;
            createdAt: string;
            startedAt?: string;
            completedAt?: string;
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata: {
                [key: string]: string;
            };
            timings: {
                /** @description Created until its first attempt started (waiting for a concurrency slot and a processor). */
                queuedMs: number | null;
                /** @description The first attempt's start until the last one's: earlier attempts that did not end the job, and their wait for a processor; 0 when the first attempt ended it. */
                retriesMs: number | null;
                /** @description The last attempt's start sent to the processor until the processor took it and began the work, a container's cold start included. */
                startMs: number | null;
                /** @description The processor's read of the input before its tool starts, in the last attempt: the whole download, or for a type that reads as it goes (video) only the first range. */
                fetchInputMs: number | null;
                /** @description The processing itself (probe, tools, outputs written), in the last attempt. */
                processMs: number | null;
                /** @description Outputs moved from the processor into storage. */
                storeOutputMs: number | null;
                /** @description The processor's end (tools done, outputs stored) until the job's end was recorded: the news of the end reaching the service. */
                reportMs: number | null;
                /** @description Present when the encode ran in chunks on several seats (docs/fanout.md): processMs is then the stitch's. */
                fanout?: {
                    /** @description Chunks the video was cut into, each encoded on a seat of its own. */
                    chunks: number;
                    /** @description The most parts (chunks and the audio) that ran at once. */
                    seats: number;
                    /** @description The longest chunk's attempt, its start sent until its end recorded. */
                    longestChunkMs: number;
                    /** @description The first part's start until the last part's end. */
                    partsMs: number;
                    /** @description The stitch (joining and checking the chunks) on its processor; null until it ran. */
                    stitchMs: number | null;
                };
            };
            store?: components["schemas"]["JobStore"];
            /** @description When the job's stream became playable, before the job completed (videoAdaptive: docs/job-types.md). Absent until then, and on failed or cancelled jobs. */
            playableAt?: string;
            /** @description The stream a player can start from while the job still runs; present with `playableAt`, on processing and completed jobs. */
            playable?: {
                /** @description The master playlist (`…/master.m3u8`), signed for its folder as a result's `url` is: the playlists and segments it names resolve under it. It names only renditions whose files are stored, and grows as the others are; no file it names changes. */
                url: string;
                /** @description When the link expires (one hour); read the job again for a fresh one. */
                expiresAt: string;
            };
            /** @description The failure's message when failed, otherwise null. */
            error: string | null;
            /** @description The failure's code when failed, otherwise null. */
            errorCode: ("input_unreachable" | "input_too_large" | "unsupported_media" | "corrupt_media" | "encrypted_media" | "no_audio_stream" | "no_video_stream" | "duration_limit_exceeded" | "invalid_input" | "watermark_unavailable" | "watermark_invalid" | "processing_timeout" | "resource_limit_exceeded" | "processing_interrupted" | "invalid_result" | "processing_failed") | null;
            /** @constant */
            type: "videoClip";
            /** @constant */
            status: "completed";
            url: string;
            expiresAt: string;
            size: number;
            start: number;
            end: number;
            duration: number;
            width: number;
            height: number;
            reencoded: boolean;
            source: {
                size: number;
                width: number;
                height: number;
                duration: number;
            };
        };
        VideoConcatCompletedSdkJob: {
            id: string;
            priority: number;
            progress: number | null;
            createdAt: string;
            startedAt?: string;
            completedAt?: string;
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata: {
                [key: string]: string;
            };
            timings: {
                /** @description Created until its first attempt started (waiting for a concurrency slot and a processor). */
                queuedMs: number | null;
                /** @description The first attempt's start until the last one's: earlier attempts that did not end the job, and their wait for a processor; 0 when the first attempt ended it. */
                retriesMs: number | null;
                /** @description The last attempt's start sent to the processor until the processor took it and began the work, a container's cold start included. */
                startMs: number | null;
                /** @description The processor's read of the input before its tool starts, in the last attempt: the whole download, or for a type that reads as it goes (video) only the first range. */
                fetchInputMs: number | null;
                /** @description The processing itself (probe, tools, outputs written), in the last attempt. */
                processMs: number | null;
                /** @description Outputs moved from the processor into storage. */
                storeOutputMs: number | null;
                /** @description The processor's end (tools done, outputs stored) until the job's end was recorded: the news of the end reaching the service. */
                reportMs: number | null;
                /** @description Present when the encode ran in chunks on several seats (docs/fanout.md): processMs is then the stitch's. */
                fanout?: {
                    /** @description Chunks the video was cut into, each encoded on a seat of its own. */
                    chunks: number;
                    /** @description The most parts (chunks and the audio) that ran at once. */
                    seats: number;
                    /** @description The longest chunk's attempt, its start sent until its end recorded. */
                    longestChunkMs: number;
                    /** @description The first part's start until the last part's end. */
                    partsMs: number;
                    /** @description The stitch (joining and checking the chunks) on its processor; null until it ran. */
                    stitchMs: number | null;
                };
            };
            store?: components["schemas"]["JobStore"];
            /** @description When the job's stream became playable, before the job completed (videoAdaptive: docs/job-types.md). Absent until then, and on failed or cancelled jobs. */
            playableAt?: string;
            /** @description The stream a player can start from while the job still runs; present with `playableAt`, on processing and completed jobs. */
            playable?: {
                /** @description The master playlist (`…/master.m3u8`), signed for its folder as a result's `url` is: the playlists and segments it names resolve under it. It names only renditions whose files are stored, and grows as the others are; no file it names changes. */
                url: string;
                /** @description When the link expires (one hour); read the job again for a fresh one. */
                expiresAt: string;
            };
            /** @description The failure's message when failed, otherwise null. */
            error: string | null;
            /** @description The failure's code when failed, otherwise null. */
            errorCode: ("input_unreachable" | "input_too_large" | "unsupported_media" | "corrupt_media" | "encrypted_media" | "no_audio_stream" | "no_video_stream" | "duration_limit_exceeded" | "invalid_input" | "watermark_unavailable" | "watermark_invalid" | "processing_timeout" | "resource_limit_exceeded" | "processing_interrupted" | "invalid_result" | "processing_failed") | null;
            /** @constant */
            type: "videoConcat";
            /** @constant */
            status: "completed";
            url: string;
            expiresAt: string;
            size: number;
            duration: number;
            width: number;
            height: number;
            fps: number;
            inputs: {
                duration: number;
                width: number;
                height: number;
                audio: boolean;
            }[];
        };
        UnfinishedSdkJob: {
            id: string;
            priority: number;
            progress: number | null;
            createdAt: string;
            startedAt?: string;
            completedAt?: string;
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata: {
                [key: string]: string;
            };
            timings: {
                /** @description Created until its first attempt started (waiting for a concurrency slot and a processor). */
                queuedMs: number | null;
                /** @description The first attempt's start until the last one's: earlier attempts that did not end the job, and their wait for a processor; 0 when the first attempt ended it. */
                retriesMs: number | null;
                /** @description The last attempt's start sent to the processor until the processor took it and began the work, a container's cold start included. */
                startMs: number | null;
                /** @description The processor's read of the input before its tool starts, in the last attempt: the whole download, or for a type that reads as it goes (video) only the first range. */
                fetchInputMs: number | null;
                /** @description The processing itself (probe, tools, outputs written), in the last attempt. */
                processMs: number | null;
                /** @description Outputs moved from the processor into storage. */
                storeOutputMs: number | null;
                /** @description The processor's end (tools done, outputs stored) until the job's end was recorded: the news of the end reaching the service. */
                reportMs: number | null;
                /** @description Present when the encode ran in chunks on several seats (docs/fanout.md): processMs is then the stitch's. */
                fanout?: {
                    /** @description Chunks the video was cut into, each encoded on a seat of its own. */
                    chunks: number;
                    /** @description The most parts (chunks and the audio) that ran at once. */
                    seats: number;
                    /** @description The longest chunk's attempt, its start sent until its end recorded. */
                    longestChunkMs: number;
                    /** @description The first part's start until the last part's end. */
                    partsMs: number;
                    /** @description The stitch (joining and checking the chunks) on its processor; null until it ran. */
                    stitchMs: number | null;
                };
            };
            store?: components["schemas"]["JobStore"];
            /** @description When the job's stream became playable, before the job completed (videoAdaptive: docs/job-types.md). Absent until then, and on failed or cancelled jobs. */
            playableAt?: string;
            /** @description The stream a player can start from while the job still runs; present with `playableAt`, on processing and completed jobs. */
            playable?: {
                /** @description The master playlist (`…/master.m3u8`), signed for its folder as a result's `url` is: the playlists and segments it names resolve under it. It names only renditions whose files are stored, and grows as the others are; no file it names changes. */
                url: string;
                /** @description When the link expires (one hour); read the job again for a fresh one. */
                expiresAt: string;
            };
            /** @description The failure's message when failed, otherwise null. */
            error: string | null;
            /** @description The failure's code when failed, otherwise null. */
            errorCode: ("input_unreachable" | "input_too_large" | "unsupported_media" | "corrupt_media" | "encrypted_media" | "no_audio_stream" | "no_video_stream" | "duration_limit_exceeded" | "invalid_input" | "watermark_unavailable" | "watermark_invalid" | "processing_timeout" | "resource_limit_exceeded" | "processing_interrupted" | "invalid_result" | "processing_failed") | null;
            /** @enum {string} */
            type: "compressVideo" | "compressImage" | "compressPdf" | "videoThumbnail" | "extractAudio" | "audioWaveform" | "videoExtraction" | "videoStoryboard" | "videoPreview" | "videoAdaptive" | "videoClip" | "videoConcat";
            /** @enum {string} */
            status: "pending" | "processing" | "failed" | "cancelled";
        };
        /** @description A job in the client-library dialect (the webhook payload): camelCase `type`, `pending` for queued, result fields at the root on completed jobs, `error` as the failure's message with `errorCode` beside it. */
        SdkJob: components["schemas"]["CompressVideoCompletedSdkJob"] | components["schemas"]["CompressImageCompletedSdkJob"] | components["schemas"]["CompressPdfCompletedSdkJob"] | components["schemas"]["VideoThumbnailCompletedSdkJob"] | components["schemas"]["ExtractAudioCompletedSdkJob"] | components["schemas"]["AudioWaveformCompletedSdkJob"] | components["schemas"]["VideoExtractionCompletedSdkJob"] | components["schemas"]["VideoStoryboardCompletedSdkJob"] | components["schemas"]["VideoPreviewCompletedSdkJob"] | components["schemas"]["VideoAdaptiveCompletedSdkJob"] | components["schemas"]["VideoClipCompletedSdkJob"] | components["schemas"]["VideoConcatCompletedSdkJob"] | components["schemas"]["UnfinishedSdkJob"];
        /** @description A job in the HTTP dialect, by type. `result` on completed jobs only, `error` on failed jobs only. */
        Job: components["schemas"]["CompressVideoJob"] | components["schemas"]["CompressImageJob"] | components["schemas"]["CompressPdfJob"] | components["schemas"]["VideoThumbnailJob"] | components["schemas"]["ExtractAudioJob"] | components["schemas"]["AudioWaveformJob"] | components["schemas"]["VideoExtractionJob"] | components["schemas"]["VideoStoryboardJob"] | components["schemas"]["VideoPreviewJob"] | components["schemas"]["VideoAdaptiveJob"] | components["schemas"]["VideoClipJob"] | components["schemas"]["VideoConcatJob"];
        JobPlayableWebhook: {
            /** @constant */
            type: "job.playable";
            data: components["schemas"]["SdkJob"];
        };
        JobFailure: {
            /** @enum {string} */
            code: "input_unreachable" | "input_too_large" | "unsupported_media" | "corrupt_media" | "encrypted_media" | "no_audio_stream" | "no_video_stream" | "duration_limit_exceeded" | "invalid_input" | "watermark_unavailable" | "watermark_invalid" | "processing_timeout" | "resource_limit_exceeded" | "processing_interrupted" | "invalid_result" | "processing_failed";
            message: string;
        };
        CreatedJob: {
            id: string;
            /** @enum {string} */
            type: "compress-video" | "compress-image" | "compress-pdf" | "video-thumbnail" | "extract-audio" | "audio-waveform" | "video-extraction" | "video-storyboard" | "video-preview" | "video-adaptive" | "video-clip" | "video-concat";
            priority: number;
            createdAt: string;
            /** @constant */
            status: "queued";
        };
        JobList: {
            data: components["schemas"]["Job"][];
            /** @description Pass as `cursor` for the next page; null on the last page. */
            nextCursor: string | null;
            hasMore: boolean;
        };
        CancelResult: {
            /** @constant */
            success: true;
            jobId: string;
        } | {
            /** @constant */
            success: false;
            jobId: string;
            /**
             * @description The job had already finished in this state.
             * @enum {string}
             */
            status: "queued" | "processing" | "completed" | "failed" | "cancelled";
        };
        DeletedJob: {
            id: string;
            /** @constant */
            deleted: true;
        };
        Upload: {
            /** @description `upl_…`; use it as a job's input: `upload:upl_…`. */
            id: string;
            /**
             * @description `pending` until the bytes arrive, then `uploaded`.
             * @enum {string}
             */
            status: "pending" | "uploaded";
            /**
             * @description `put`: one PUT to `target` (POST /v1/uploads); `tus`: resumable (/v1/uploads/tus).
             * @enum {string}
             */
            protocol: "put" | "tus";
            /** @description Bytes received and kept so far (a resumable upload's Upload-Offset); `size` once uploaded. */
            received: number;
            filename: string;
            contentType: string;
            size: number;
            createdAt: string;
            uploadedAt?: string;
            /** @description When the upload is removed unless a job uses it (each job that does moves this 24 h on); an unfinished resumable upload's Upload-Expires. */
            expiresAt: string;
        };
        CreatedUpload: {
            /** @description `upl_…`; use it as a job's input: `upload:upl_…`. */
            id: string;
            /**
             * @description `pending` until the bytes arrive, then `uploaded`.
             * @enum {string}
             */
            status: "pending" | "uploaded";
            /**
             * @description `put`: one PUT to `target` (POST /v1/uploads); `tus`: resumable (/v1/uploads/tus).
             * @enum {string}
             */
            protocol: "put" | "tus";
            /** @description Bytes received and kept so far (a resumable upload's Upload-Offset); `size` once uploaded. */
            received: number;
            filename: string;
            contentType: string;
            size: number;
            createdAt: string;
            uploadedAt?: string;
            /** @description When the upload is removed unless a job uses it (each job that does moves this 24 h on); an unfinished resumable upload's Upload-Expires. */
            expiresAt: string;
            /** @description Where to PUT the bytes. */
            target: {
                /** @constant */
                method: "PUT";
                /** @description Send the bytes here; no API key (the URL is signed). */
                url: string;
                /** @description Send exactly these headers with the PUT. */
                headers: {
                    [key: string]: string;
                };
                /** @description The URL stops working at this time. */
                expiresAt: string;
            };
        };
        UploadToken: {
            /** @description Send it as `Authorization: Bearer <token>` on the tus requests, instead of the API key. It can create and write resumable uploads only, and only its own. */
            token: string;
            /** @description The tus endpoint: `POST` creates an upload there. */
            endpoint: string;
            /** @description The token stops working at this time (an upload it started stays, and the API key can still read it). */
            expiresAt: string;
            /** @description How many uploads it may create (0 for a token that finishes one upload). */
            maxUploads: number;
            /** @description The largest upload it may create, in bytes. */
            maxBytes: number;
            /** @description With `uploadId`: the upload's tus URL, to resume at (tus-js-client's `uploadUrl`). */
            uploadUrl?: string;
        };
        Usage: {
            /** @enum {string} */
            plan: "free" | "pro" | "enterprise";
            /**
             * @description The key's mode; limits and counts are per mode.
             * @enum {string}
             */
            mode: "live" | "test";
            /** @description False for test keys. */
            billable: boolean;
            limits: {
                /** @description Jobs processing at once. */
                concurrentJobs: number;
                /** @description Jobs created per sliding hour. */
                jobsPerHour: number;
                /** @description The largest upload, direct or resumable; never above what the processor takes as an input (2 GiB). */
                maxUploadBytes: number;
                /** @description Uploads created per sliding hour, direct and resumable. */
                uploadsPerHour: number;
                /** @description Resumable uploads unfinished at once; a finished, terminated or expired one frees its place. */
                openUploads: number;
                /** @description Seats one long compressVideo may use at once by chunked encoding (docs/fanout.md); 1: every job encodes on one seat. A fanned-out job still takes one concurrency slot and counts once per hour. */
                maxFanout: number;
                /** @description Reads (GET) per minute, per key. */
                readsPerMinute: number;
                /** @description What one job may ask for on this plan; a job over one is refused with 400 `invalid_input` at the field. */
                media: {
                    /** @description videoStoryboard: most tiles (`count`, or its default when only `interval` is given). */
                    storyboardTiles: number;
                    /** @description videoStoryboard: widest tile, in pixels. */
                    storyboardTileWidth: number;
                    /** @description compressVideo with codec av1: the largest maxWidth and maxHeight, in pixels, and what a job that names none gets. SVT-AV1 costs up to 5 times x264's CPU a pixel. */
                    av1MaxSide: number;
                    /** @description videoPreview: longest `duration`, in seconds. */
                    previewDurationS: number;
                    /** @description videoPreview: largest `width`, in pixels. */
                    previewWidth: number;
                    /** @description videoPreview: highest `fps`; a preview's frames are at most duration × fps. */
                    previewFps: number;
                    /** @description videoAdaptive: renditions one job encodes (each is a whole encode of the input). */
                    adaptiveRenditions: number;
                    /** @description videoAdaptive: the largest rendition's shorter side, in pixels. */
                    adaptiveMaxHeight: number;
                    /** @description videoConcat: videos one join takes, `url` included. */
                    concatInputs: number;
                };
            };
            window: {
                /** @description Length of the sliding quota window. */
                seconds: number;
                /** @description Jobs created in the window. */
                jobs: number;
                remaining: number;
                /** @description Seconds until the oldest counted job leaves the window; null when the window is empty. */
                oldestLeavesInS: number | null;
            };
            processing: number;
            queued: number;
            /** @description Uploads against the plan's upload limits. */
            uploads: {
                /** @description Uploads created in the sliding hour, direct and resumable. */
                inWindow: number;
                /** @description Uploads the plan allows before the hour's quota is reached; 0 at or over it (over it after a plan shrinks). */
                remaining: number;
                /** @description Seconds until the oldest upload in the window leaves it; null when the window is empty. */
                oldestLeavesInS: number | null;
                /** @description Resumable uploads unfinished now. */
                open: number;
            };
        };
        WebhookDelivery: {
            /** @description `msg_…`, sent as `webhook-id`; the same on every retry. */
            id: string;
            jobId: string;
            /** @enum {string} */
            trigger: "final" | "redeliver" | "workflow" | "playable";
            url: string;
            /** @enum {string} */
            status: "pending" | "succeeded" | "failed";
            attemptCount: number;
            /** @description ISO 8601 UTC. */
            createdAt: string;
            lastAttemptAt: string | null;
            /** @description When the next attempt is due while pending. */
            nextAttemptAt: string | null;
            completedAt: string | null;
            /** @description Newest first. */
            attempts: {
                attempt: number;
                /** @description ISO 8601 UTC. */
                at: string;
                /** @description The receiver's status; null when there was no answer. */
                statusCode: number | null;
                error: string | null;
                latencyMs: number;
            }[];
        };
        WebhookDeliveryList: {
            /** @description Newest first. */
            data: components["schemas"]["WebhookDelivery"][];
        };
        /** @description Where the outputs are copied (docs/destinations.md). */
        JobStore: {
            destination: string;
            prefix: string;
            status: ("pending" | "stored" | "failed") | null;
            objects: {
                /** @description The output's name. */
                name: string;
                /** @description Its key in the destination bucket. */
                key: string;
                /** @enum {string} */
                status: "pending" | "stored" | "failed";
                size: number;
                etag: string | null;
                error: string | null;
            }[];
        };
        Destination: {
            id: string;
            name: string;
            endpoint: string;
            bucket: string;
            region: string;
            accessKeyId: string;
            secretAccessKeyLast4: string;
            forcePathStyle: boolean;
            createdAt: string;
        };
        DestinationList: {
            /** @description Newest first. */
            data: components["schemas"]["Destination"][];
        };
        DestinationCheck: {
            ok: boolean;
            /** @enum {string} */
            step?: "write" | "delete";
            /** @enum {string} */
            problem?: "unreachable" | "bucket_missing" | "forbidden" | "error";
            status?: number | null;
            code?: string | null;
            message?: string;
        };
        FieldIssue: {
            /** @description The field as the request named it, such as `options.quality` or `params.url`. */
            path: string;
            message: string;
            /**
             * @description A destination's failed check: `unreachable`, `bucket_missing`, `forbidden` or `error`.
             * @enum {string}
             */
            problem?: "unreachable" | "bucket_missing" | "forbidden" | "error";
            /** @description A destination's failed check: the bucket's HTTP status, null when it did not answer. */
            status?: number | null;
            /** @description A destination's failed check: the bucket's S3 error code (`InvalidAccessKeyId`, `NoSuchBucket`…). */
            code?: string | null;
        };
        RateLimitDetails: {
            /** @description The limit that refused the request, as the RateLimit-Policy and RateLimit headers name it: `jobs-per-hour`, `uploads-per-hour`, `open-uploads` (resumable uploads unfinished at once) or `reads`. */
            policy: string;
            /** @description What the limit allows: jobs, uploads or reads per window, or (`open-uploads`) unfinished uploads at once. */
            limit: number;
            /** @description The window in seconds, for a limit over time; absent for `open-uploads`, a limit on uploads at once. */
            window?: number;
            /** @description Seconds until a retry can succeed (Retry-After). */
            retryAfter: number;
        };
        SizeLimitDetails: {
            /** @description The largest size allowed, in bytes: the plan's largest upload, or the upload token's `maxBytes`. */
            limit: number;
        };
        InvalidInputError: {
            error: {
                /** @constant */
                code: "invalid_input";
                /** @description What went wrong, in words meant for the developer. */
                message: string;
                /** @description Each problem with its field. */
                details?: components["schemas"]["FieldIssue"][];
                /** @description The request's x-request-id; quote it when asking for help. */
                requestId?: string;
            };
        };
        UnauthorizedError: {
            error: {
                /** @constant */
                code: "unauthorized";
                /** @description What went wrong, in words meant for the developer. */
                message: string;
                /** @description The request's x-request-id; quote it when asking for help. */
                requestId?: string;
            };
        };
        ForbiddenError: {
            error: {
                /** @constant */
                code: "forbidden";
                /** @description What went wrong, in words meant for the developer. */
                message: string;
                /** @description The request's x-request-id; quote it when asking for help. */
                requestId?: string;
            };
        };
        NotFoundError: {
            error: {
                /** @constant */
                code: "not_found";
                /** @description What went wrong, in words meant for the developer. */
                message: string;
                /** @description The request's x-request-id; quote it when asking for help. */
                requestId?: string;
            };
        };
        IdempotencyKeyInUseError: {
            error: {
                /** @constant */
                code: "idempotency_key_in_use";
                /** @description What went wrong, in words meant for the developer. */
                message: string;
                /** @description The request's x-request-id; quote it when asking for help. */
                requestId?: string;
            };
        };
        UploadOffsetMismatchError: {
            error: {
                /** @constant */
                code: "upload_offset_mismatch";
                /** @description What went wrong, in words meant for the developer. */
                message: string;
                /** @description The request's x-request-id; quote it when asking for help. */
                requestId?: string;
            };
        };
        WorkflowNotEndedError: {
            error: {
                /** @constant */
                code: "workflow_not_ended";
                /** @description What went wrong, in words meant for the developer. */
                message: string;
                /** @description The request's x-request-id; quote it when asking for help. */
                requestId?: string;
            };
        };
        UploadExpiredError: {
            error: {
                /** @constant */
                code: "upload_expired";
                /** @description What went wrong, in words meant for the developer. */
                message: string;
                /** @description The request's x-request-id; quote it when asking for help. */
                requestId?: string;
            };
        };
        TusVersionUnsupportedError: {
            error: {
                /** @constant */
                code: "tus_version_unsupported";
                /** @description What went wrong, in words meant for the developer. */
                message: string;
                /** @description The request's x-request-id; quote it when asking for help. */
                requestId?: string;
            };
        };
        PayloadTooLargeError: {
            error: {
                /** @constant */
                code: "payload_too_large";
                /** @description What went wrong, in words meant for the developer. */
                message: string;
                /** @description With a tus creation whose Upload-Length is over a limit: that limit. */
                details?: components["schemas"]["SizeLimitDetails"];
                /** @description The request's x-request-id; quote it when asking for help. */
                requestId?: string;
            };
        };
        UnsupportedMediaTypeError: {
            error: {
                /** @constant */
                code: "unsupported_media_type";
                /** @description What went wrong, in words meant for the developer. */
                message: string;
                /** @description The request's x-request-id; quote it when asking for help. */
                requestId?: string;
            };
        };
        IdempotencyKeyReusedError: {
            error: {
                /** @constant */
                code: "idempotency_key_reused";
                /** @description What went wrong, in words meant for the developer. */
                message: string;
                /** @description The request's x-request-id; quote it when asking for help. */
                requestId?: string;
            };
        };
        UploadLockedError: {
            error: {
                /** @constant */
                code: "upload_locked";
                /** @description What went wrong, in words meant for the developer. */
                message: string;
                /** @description The request's x-request-id; quote it when asking for help. */
                requestId?: string;
            };
        };
        RateLimitedError: {
            error: {
                /** @constant */
                code: "rate_limit_exceeded";
                /** @description What went wrong, in words meant for the developer. */
                message: string;
                details: components["schemas"]["RateLimitDetails"];
                /** @description The request's x-request-id; quote it when asking for help. */
                requestId?: string;
            };
        };
        ChecksumMismatchError: {
            error: {
                /** @constant */
                code: "checksum_mismatch";
                /** @description What went wrong, in words meant for the developer. */
                message: string;
                /** @description The request's x-request-id; quote it when asking for help. */
                requestId?: string;
            };
        };
        InternalError: {
            error: {
                /** @constant */
                code: "internal_error";
                /** @description What went wrong, in words meant for the developer. */
                message: string;
                /** @description The request's x-request-id; quote it when asking for help. */
                requestId?: string;
            };
        };
        /** @description Every error body, by code: 400 `invalid_input`, 401 `unauthorized`, 403 `forbidden`, 404 `not_found`, 409 `idempotency_key_in_use`, 409 `upload_offset_mismatch`, 409 `workflow_not_ended`, 410 `upload_expired`, 412 `tus_version_unsupported`, 413 `payload_too_large`, 415 `unsupported_media_type`, 422 `idempotency_key_reused`, 423 `upload_locked`, 429 `rate_limit_exceeded`, 460 `checksum_mismatch`, 500 `internal_error`. */
        Error: components["schemas"]["InvalidInputError"] | components["schemas"]["UnauthorizedError"] | components["schemas"]["ForbiddenError"] | components["schemas"]["NotFoundError"] | components["schemas"]["IdempotencyKeyInUseError"] | components["schemas"]["UploadOffsetMismatchError"] | components["schemas"]["WorkflowNotEndedError"] | components["schemas"]["UploadExpiredError"] | components["schemas"]["TusVersionUnsupportedError"] | components["schemas"]["PayloadTooLargeError"] | components["schemas"]["UnsupportedMediaTypeError"] | components["schemas"]["IdempotencyKeyReusedError"] | components["schemas"]["UploadLockedError"] | components["schemas"]["RateLimitedError"] | components["schemas"]["ChecksumMismatchError"] | components["schemas"]["InternalError"];
        Health: {
            ok: boolean;
            version: string;
            /** @description d1, r2, processor and queues, each with `ok`, and `ms` and `error` when probed. */
            checks: {
                [key: string]: {
                    ok: boolean;
                } & {
                    [key: string]: unknown;
                };
            };
        };
        /** @description A step: a job type and its params other than `url` (`params`, or `options` in the HTTP dialect); `use` names the step whose output it reads (absent: the workflow's input), `output` which output of it (`main` unless the type has several). */
        WorkflowStepRequest: {
            /**
             * @description Either spelling of the job type.
             * @enum {string}
             */
            type: "compress-video" | "compressVideo";
            params?: components["schemas"]["CompressVideoOptions"];
            options?: components["schemas"]["CompressVideoOptions"];
            use?: string;
            output?: string;
        } | {
            /**
             * @description Either spelling of the job type.
             * @enum {string}
             */
            type: "compress-image" | "compressImage";
            params?: components["schemas"]["CompressImageOptions"];
            options?: components["schemas"]["CompressImageOptions"];
            use?: string;
            output?: string;
        } | {
            /**
             * @description Either spelling of the job type.
             * @enum {string}
             */
            type: "compress-pdf" | "compressPdf";
            params?: components["schemas"]["CompressPdfOptions"];
            options?: components["schemas"]["CompressPdfOptions"];
            use?: string;
            output?: string;
        } | {
            /**
             * @description Either spelling of the job type.
             * @enum {string}
             */
            type: "video-thumbnail" | "videoThumbnail";
            params?: components["schemas"]["VideoThumbnailOptions"];
            options?: components["schemas"]["VideoThumbnailOptions"];
            use?: string;
            output?: string;
        } | {
            /**
             * @description Either spelling of the job type.
             * @enum {string}
             */
            type: "extract-audio" | "extractAudio";
            params?: components["schemas"]["ExtractAudioOptions"];
            options?: components["schemas"]["ExtractAudioOptions"];
            use?: string;
            output?: string;
        } | {
            /**
             * @description Either spelling of the job type.
             * @enum {string}
             */
            type: "audio-waveform" | "audioWaveform";
            params?: components["schemas"]["AudioWaveformOptions"];
            options?: components["schemas"]["AudioWaveformOptions"];
            use?: string;
            output?: string;
        } | {
            /**
             * @description Either spelling of the job type.
             * @enum {string}
             */
            type: "video-extraction" | "videoExtraction";
            params?: components["schemas"]["VideoExtractionOptions"];
            options?: components["schemas"]["VideoExtractionOptions"];
            use?: string;
            output?: string;
        } | {
            /**
             * @description Either spelling of the job type.
             * @enum {string}
             */
            type: "video-storyboard" | "videoStoryboard";
            params?: components["schemas"]["VideoStoryboardOptions"];
            options?: components["schemas"]["VideoStoryboardOptions"];
            use?: string;
            output?: string;
        } | {
            /**
             * @description Either spelling of the job type.
             * @enum {string}
             */
            type: "video-preview" | "videoPreview";
            params?: components["schemas"]["VideoPreviewOptions"];
            options?: components["schemas"]["VideoPreviewOptions"];
            use?: string;
            output?: string;
        } | {
            /**
             * @description Either spelling of the job type.
             * @enum {string}
             */
            type: "video-adaptive" | "videoAdaptive";
            params?: components["schemas"]["VideoAdaptiveOptions"];
            options?: components["schemas"]["VideoAdaptiveOptions"];
            use?: string;
            output?: string;
        } | {
            /**
             * @description Either spelling of the job type.
             * @enum {string}
             */
            type: "video-clip" | "videoClip";
            params?: components["schemas"]["VideoClipOptions"];
            options?: components["schemas"]["VideoClipOptions"];
            use?: string;
            output?: string;
        } | {
            /**
             * @description Either spelling of the job type.
             * @enum {string}
             */
            type: "video-concat" | "videoConcat";
            params?: components["schemas"]["VideoConcatOptions"];
            options?: components["schemas"]["VideoConcatOptions"];
            use?: string;
            output?: string;
        };
        /** @description Either `steps`, or `template` (a template id) with optional `overrides`. The input in `url` (client-library dialect) or `input` (HTTP dialect). */
        CreateWorkflowRequest: {
            /** @description The http(s) URL of the media to process, or `upload:upl_…` for one of your uploads. */
            url?: string;
            /** @description The HTTP dialect's name for `url`. */
            input?: string;
            /** @description Named steps (1–20; a name is 1–40 letters, digits, _ and -, starting with a letter). */
            steps?: {
                [key: string]: components["schemas"]["WorkflowStepRequest"];
            };
            /** @description A template's id (`tpl_…`), instead of `steps`. */
            template?: string;
            /** @description Step name → params merged over that template step's params. */
            overrides?: {
                [key: string]: Record<string, never>;
            };
            /** @description Receives one signed POST when the workflow ends (`workflow.completed`, `workflow.failed`, `workflow.cancelled`). */
            webhookUrl?: string;
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata?: {
                [key: string]: string;
            };
            /** @description Copies the steps' outputs to the organization's own bucket once the workflow completed: each under `<prefix><step>/<output name>`. */
            store?: {
                /** @description A destination's id (`dst_…`) of the job's organization. */
                destination: string;
                /** @description Prepended to each stored step's outputs, which go under `<prefix><step>/`, such as `orders/42/`. */
                prefix?: string;
                /** @description The steps whose outputs are copied; every step when absent (such as only the final renditions, not an intermediate clip). */
                steps?: string[];
            };
        };
        CreatedWorkflow: {
            id: string;
            /** @constant */
            status: "queued";
            createdAt: string;
            steps: {
                [key: string]: {
                    jobId: string;
                };
            };
        };
        Workflow: {
            id: string;
            /**
             * @description queued until a step starts; processing; completed when every step completed; failed when a step failed (the others are cancelled); cancelled.
             * @enum {string}
             */
            status: "queued" | "processing" | "completed" | "failed" | "cancelled";
            progress: number;
            /** @description The workflow's input as given: an http(s) URL or `upload:upl_…`. */
            input: string;
            template: string | null;
            createdAt: string;
            endedAt?: string;
            error?: {
                /** @description The step that failed the workflow. */
                step: string;
                /** @description The step's error code (`cancelled` when the step itself was cancelled). */
                code: string;
                message: string;
            };
            /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
            metadata: {
                [key: string]: string;
            };
            /** @description Where the steps' outputs are copied (docs/workflows.md: store). */
            store?: {
                destination: string;
                prefix: string;
                /** @description The steps whose outputs are copied; each step's own `store` lists its outputs' keys and statuses. */
                steps: string[];
                /** @description null until the workflow completed (and for good when it failed or was cancelled: nothing is copied then); pending while a step's copy runs; stored once every output is; failed when a step's copy finally failed. */
                status: ("pending" | "stored" | "failed") | null;
            };
            steps: {
                [key: string]: {
                    id: string;
                    /** @enum {string} */
                    type: "compress-video" | "compress-image" | "compress-pdf" | "video-thumbnail" | "extract-audio" | "audio-waveform" | "video-extraction" | "video-storyboard" | "video-preview" | "video-adaptive" | "video-clip" | "video-concat";
                    /** @enum {string} */
                    status: "queued" | "processing" | "completed" | "failed" | "cancelled";
                    priority: number;
                    progress: number | null;
                    createdAt: string;
                    startedAt?: string;
                    completedAt?: string;
                    result?: {
                        [key: string]: unknown;
                    };
                    error?: {
                        /** @enum {string} */
                        code: "input_unreachable" | "input_too_large" | "unsupported_media" | "corrupt_media" | "encrypted_media" | "no_audio_stream" | "no_video_stream" | "duration_limit_exceeded" | "invalid_input" | "watermark_unavailable" | "watermark_invalid" | "processing_timeout" | "resource_limit_exceeded" | "processing_interrupted" | "invalid_result" | "processing_failed";
                        message: string;
                    };
                    /** @description Your own strings, kept with the job and returned on every read and webhook: at most 20 keys of 1–40 characters of [A-Za-z0-9_-], values up to 500 characters. */
                    metadata: {
                        [key: string]: string;
                    };
                    timings: {
                        /** @description Created until its first attempt started (waiting for a concurrency slot and a processor). */
                        queuedMs: number | null;
                        /** @description The first attempt's start until the last one's: earlier attempts that did not end the job, and their wait for a processor; 0 when the first attempt ended it. */
                        retriesMs: number | null;
                        /** @description The last attempt's start sent to the processor until the processor took it and began the work, a container's cold start included. */
                        startMs: number | null;
                        /** @description The processor's read of the input before its tool starts, in the last attempt: the whole download, or for a type that reads as it goes (video) only the first range. */
                        fetchInputMs: number | null;
                        /** @description The processing itself (probe, tools, outputs written), in the last attempt. */
                        processMs: number | null;
                        /** @description Outputs moved from the processor into storage. */
                        storeOutputMs: number | null;
                        /** @description The processor's end (tools done, outputs stored) until the job's end was recorded: the news of the end reaching the service. */
                        reportMs: number | null;
                        /** @description Present when the encode ran in chunks on several seats (docs/fanout.md): processMs is then the stitch's. */
                        fanout?: {
                            /** @description Chunks the video was cut into, each encoded on a seat of its own. */
                            chunks: number;
                            /** @description The most parts (chunks and the audio) that ran at once. */
                            seats: number;
                            /** @description The longest chunk's attempt, its start sent until its end recorded. */
                            longestChunkMs: number;
                            /** @description The first part's start until the last part's end. */
                            partsMs: number;
                            /** @description The stitch (joining and checking the chunks) on its processor; null until it ran. */
                            stitchMs: number | null;
                        };
                    };
                    /** @description Where the outputs are copied (docs/destinations.md). */
                    store?: {
                        destination: string;
                        prefix: string;
                        status: ("pending" | "stored" | "failed") | null;
                        objects: {
                            /** @description The output's name. */
                            name: string;
                            /** @description Its key in the destination bucket. */
                            key: string;
                            /** @enum {string} */
                            status: "pending" | "stored" | "failed";
                            size: number;
                            etag: string | null;
                            error: string | null;
                        }[];
                    };
                    /** @description When the job's stream became playable, before the job completed (videoAdaptive: docs/job-types.md). Absent until then, and on failed or cancelled jobs. */
                    playableAt?: string;
                    /** @description The stream a player can start from while the job still runs; present with `playableAt`, on processing and completed jobs. */
                    playable?: {
                        /** @description The master playlist (`…/master.m3u8`), signed for its folder as a result's `url` is: the playlists and segments it names resolve under it. It names only renditions whose files are stored, and grows as the others are; no file it names changes. */
                        url: string;
                        /** @description When the link expires (one hour); read the job again for a fresh one. */
                        expiresAt: string;
                    };
                    /** @description The step whose output this step reads; null: the workflow's input. */
                    use: string | null;
                    /** @description Which output of the used step; null: its main output. */
                    output: string | null;
                };
            };
        };
        WorkflowList: {
            data: components["schemas"]["Workflow"][];
            nextCursor: string | null;
            hasMore: boolean;
        };
        WorkflowCancelResult: {
            success: boolean;
            workflowId: string;
            /** @enum {string} */
            status?: "queued" | "processing" | "completed" | "failed" | "cancelled";
        };
        DeletedWorkflow: {
            /** @description The workflow's id. */
            id: string;
            /** @constant */
            deleted: true;
        };
        WorkflowWebhook: {
            /** @enum {string} */
            type: "workflow.completed" | "workflow.failed" | "workflow.cancelled";
            data: components["schemas"]["Workflow"];
        };
        CreateTemplateRequest: {
            name: string;
            /** @description Named steps (1–20; a name is 1–40 letters, digits, _ and -, starting with a letter). */
            steps: {
                [key: string]: components["schemas"]["WorkflowStepRequest"];
            };
        };
        UpdateTemplateRequest: {
            name?: string;
            /** @description Named steps (1–20; a name is 1–40 letters, digits, _ and -, starting with a letter). */
            steps?: {
                [key: string]: components["schemas"]["WorkflowStepRequest"];
            };
        };
        Template: {
            id: string;
            name: string;
            steps: {
                [key: string]: {
                    type: string;
                    params: {
                        [key: string]: unknown;
                    };
                    use?: string;
                    output?: string;
                };
            };
            createdAt: string;
            updatedAt: string;
        };
        TemplateList: {
            data: components["schemas"]["Template"][];
            nextCursor: string | null;
            hasMore: boolean;
        };
        DeletedTemplate: {
            /** @description The template's id. */
            id: string;
            /** @constant */
            deleted: true;
        };
    };
    responses: {
        /** @description `invalid_input`: malformed JSON, an unknown or wrong field, a bad URL or an out-of-range value; `details` lists each problem with its field path. */
        InvalidInput: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "invalid_input",
                 *         "message": "…",
                 *         "details": [
                 *           {
                 *             "path": "options.quality",
                 *             "message": "Too big: expected number to be <=100"
                 *           }
                 *         ],
                 *         "requestId": "4f7c2a1e-…"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["InvalidInputError"];
            };
        };
        /** @description `unauthorized`: a missing, malformed, unknown or revoked API key. */
        Unauthorized: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "unauthorized",
                 *         "message": "…",
                 *         "requestId": "4f7c2a1e-…"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["UnauthorizedError"];
            };
        };
        /** @description `forbidden`: a download link that is tampered with, malformed or expired; a browser upload token that created its maxUploads already. */
        Forbidden: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "forbidden",
                 *         "message": "…",
                 *         "requestId": "4f7c2a1e-…"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ForbiddenError"];
            };
        };
        /** @description `not_found`: no such job, workflow or template for this organization and mode, or no such route. */
        NotFound: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "not_found",
                 *         "message": "…",
                 *         "requestId": "4f7c2a1e-…"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["NotFoundError"];
            };
        };
        /** @description `idempotency_key_in_use`: a request with the same Idempotency-Key is still running. */
        IdempotencyKeyInUse: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Retry-After": components["headers"]["Retry-After"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "idempotency_key_in_use",
                 *         "message": "…",
                 *         "requestId": "4f7c2a1e-…"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["IdempotencyKeyInUseError"];
            };
        };
        /** @description `upload_offset_mismatch`: a tus PATCH whose Upload-Offset is not the offset the upload has reached; HEAD it and go on from there. */
        UploadOffsetMismatch: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "upload_offset_mismatch",
                 *         "message": "…",
                 *         "requestId": "4f7c2a1e-…"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["UploadOffsetMismatchError"];
            };
        };
        /** @description `workflow_not_ended`: a DELETE of a workflow with steps still queued or processing; cancel it first. */
        WorkflowNotEnded: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "workflow_not_ended",
                 *         "message": "…",
                 *         "requestId": "4f7c2a1e-…"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["WorkflowNotEndedError"];
            };
        };
        /** @description `upload_expired`: a tus upload past its Upload-Expires (or terminated): its bytes are gone; create a new one. */
        UploadExpired: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "upload_expired",
                 *         "message": "…",
                 *         "requestId": "4f7c2a1e-…"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["UploadExpiredError"];
            };
        };
        /** @description `tus_version_unsupported`: a tus request without Tus-Resumable: 1.0.0. */
        TusVersionUnsupported: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                /** @description The tus versions this server speaks: `1.0.0`. */
                "Tus-Version": string;
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "tus_version_unsupported",
                 *         "message": "…",
                 *         "requestId": "4f7c2a1e-…"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["TusVersionUnsupportedError"];
            };
        };
        /** @description `payload_too_large`: a request body over 64 KiB, or a tus upload larger than the plan or its upload token allows. */
        PayloadTooLarge: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                /** @description With a tus PATCH that ran past Upload-Length: the offset the upload reached. */
                "Upload-Offset"?: number;
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "payload_too_large",
                 *         "message": "…",
                 *         "requestId": "4f7c2a1e-…"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["PayloadTooLargeError"];
            };
        };
        /** @description `unsupported_media_type`: a create request whose Content-Type is not application/json. */
        UnsupportedMediaType: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "unsupported_media_type",
                 *         "message": "…",
                 *         "requestId": "4f7c2a1e-…"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["UnsupportedMediaTypeError"];
            };
        };
        /** @description `idempotency_key_reused`: the Idempotency-Key was used with another body in the last 24 h. */
        IdempotencyKeyReused: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "idempotency_key_reused",
                 *         "message": "…",
                 *         "requestId": "4f7c2a1e-…"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["IdempotencyKeyReusedError"];
            };
        };
        /** @description `upload_locked`: another PATCH is writing this tus upload; try again when it ends. */
        UploadLocked: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "upload_locked",
                 *         "message": "…",
                 *         "requestId": "4f7c2a1e-…"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["UploadLockedError"];
            };
        };
        /** @description `rate_limit_exceeded`: the plan's hourly job or upload quota, its unfinished uploads at once, or the read rate, is used up; see Retry-After. */
        RateLimited: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Retry-After": components["headers"]["Retry-After"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                RateLimit: components["headers"]["RateLimit"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "rate_limit_exceeded",
                 *         "message": "…",
                 *         "details": {
                 *           "policy": "jobs-per-hour",
                 *           "limit": 100,
                 *           "window": 3600,
                 *           "retryAfter": 1200
                 *         },
                 *         "requestId": "4f7c2a1e-…"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["RateLimitedError"];
            };
        };
        /** @description `checksum_mismatch`: a tus PATCH whose Upload-Checksum does not match its body (tus checksum extension); its bytes were not kept, send them again. */
        ChecksumMismatch: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "checksum_mismatch",
                 *         "message": "…",
                 *         "requestId": "4f7c2a1e-…"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ChecksumMismatchError"];
            };
        };
        /** @description `internal_error`: anything unexpected; logged with the request id. */
        InternalError: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "internal_error",
                 *         "message": "…",
                 *         "requestId": "4f7c2a1e-…"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["InternalError"];
            };
        };
    };
    parameters: never;
    requestBodies: never;
    headers: {
        /** @description The request's id: yours if you sent `x-request-id`, otherwise generated. */
        "X-Request-Id": string;
        /** @description IETF httpapi RateLimit header fields: the policy, its quota `q` and, for a limit over time, its window `w` in seconds, such as `"jobs-per-hour";q=100;w=3600`; a limit on uploads unfinished at once has no window (`"open-uploads";q=5`). A 429 names the policy that refused it, as its `details.policy` does. */
        "RateLimit-Policy": string;
        /** @description The policy's state: remaining `r` and seconds `t` until more, such as `"jobs-per-hour";r=99;t=3599`. */
        RateLimit: string;
        /** @description Seconds to wait before retrying. */
        "Retry-After": number;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    listJobs: {
        parameters: {
            query?: {
                /** @description Jobs per page. */
                limit?: number;
                /** @description `nextCursor` of the previous page (opaque). */
                cursor?: string;
                /** @description Only jobs in this state; `pending` (the client library's word) means `queued`. */
                status?: "queued" | "processing" | "completed" | "failed" | "cancelled" | "pending";
                /** @description Only jobs of this type, in either spelling (`compress-image` or `compressImage`). */
                type?: "compress-video" | "compress-image" | "compress-pdf" | "video-thumbnail" | "extract-audio" | "audio-waveform" | "video-extraction" | "video-storyboard" | "video-preview" | "video-adaptive" | "video-clip" | "video-concat" | "compressVideo" | "compressImage" | "compressPdf" | "videoThumbnail" | "extractAudio" | "audioWaveform" | "videoExtraction" | "videoStoryboard" | "videoPreview" | "videoAdaptive" | "videoClip" | "videoConcat";
                /** @description Creation time bounds in Unix seconds, as `created[gte]=1767225600&created[lt]=1767312000`. */
                created?: {
                    /** @description Created at or after this time, Unix seconds. */
                    gte?: number;
                    /** @description Created before this time, Unix seconds. */
                    lt?: number;
                };
                /** @description Only jobs whose metadata has each of these exact key–value pairs, as `metadata[order]=ord_123`. */
                metadata?: {
                    [key: string]: string;
                };
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of jobs. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobList"];
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    createJob: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1–255 characters. The same key and body within 24 h replays the first response (with `Idempotent-Replayed: true`); another body is 422, a request still running is 409. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "compress-image",
                 *       "input": "https://example.com/a.jpg",
                 *       "options": {
                 *         "quality": 70,
                 *         "format": "webp"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["CreateJobRequest"];
            };
        };
        responses: {
            /** @description Created and queued. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description `/v1/jobs/{id}`. */
                    Location?: string;
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    /** @description `true` when this is the replay of an earlier request with the same Idempotency-Key. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedJob"];
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            409: components["responses"]["IdempotencyKeyInUse"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    getJob: {
        parameters: {
            query?: never;
            header?: {
                /** @description `wait=N`: hold the request up to N seconds (capped at 60) for the job to end. */
                Prefer?: string;
            };
            path: {
                /** @description The job's id (`job_…`). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The job: final, or as it is when the wait ends. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description `wait=N` with the seconds applied, when the request asked to wait. */
                    "Preference-Applied"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Job"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    deleteJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The job's id (`job_…`). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeletedJob"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["InternalError"];
        };
    };
    streamJobEvents: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The job's id (`job_…`). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The event stream. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    cancelJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The job's id (`job_…`). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Cancelled, or already finished. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CancelResult"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["InternalError"];
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The job's id (`job_…`). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deliveries, newest first. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDeliveryList"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    redeliverWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The job's id (`job_…`). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The new delivery. */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDelivery"];
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["InternalError"];
        };
    };
    listDestinations: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Newest first. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DestinationList"];
                };
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    createDestination: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "archive",
                 *       "endpoint": "https://s3.eu-west-1.amazonaws.com",
                 *       "bucket": "acme-media",
                 *       "region": "eu-west-1",
                 *       "accessKeyId": "AKIA…",
                 *       "secretAccessKey": "…"
                 *     }
                 */
                "application/json": components["schemas"]["CreateDestinationRequest"];
            };
        };
        responses: {
            /** @description Created, its check passed. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description `/v1/destinations/{id}`. */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Destination"];
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            500: components["responses"]["InternalError"];
        };
    };
    getDestination: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The destination's id (`dst_…`). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The destination, without its secret. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Destination"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    deleteDestination: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The destination's id (`dst_…`). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["InternalError"];
        };
    };
    checkDestination: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The destination's id (`dst_…`). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The check's outcome. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DestinationCheck"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["InternalError"];
        };
    };
    createUpload: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "filename": "photo.jpg",
                 *       "contentType": "image/jpeg",
                 *       "size": 2483921
                 *     }
                 */
                "application/json": components["schemas"]["CreateUploadRequest"];
            };
        };
        responses: {
            /** @description Created; PUT the bytes to `target`. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description `/v1/uploads/{id}`. */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedUpload"];
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            500: components["responses"]["InternalError"];
        };
    };
    getUpload: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The upload's id (`upl_…`). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The upload. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Upload"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    putUploadContent: {
        parameters: {
            query: {
                /** @description The signed claim in `target.url`. */
                token: string;
            };
            header: {
                /** @description The declared size. */
                "Content-Length": number;
            };
            path: {
                /** @description The upload's id (`upl_…`). */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "image/jpeg": string;
                "image/png": string;
                "image/webp": string;
                "image/gif": string;
                "image/avif": string;
                "image/tiff": string;
                "video/mp4": string;
                "video/quicktime": string;
                "video/webm": string;
                "video/x-matroska": string;
                "video/mpeg": string;
                "video/x-msvideo": string;
                "video/ogg": string;
                "audio/mpeg": string;
                "audio/mp4": string;
                "audio/aac": string;
                "audio/wav": string;
                "audio/x-wav": string;
                "audio/flac": string;
                "audio/ogg": string;
                "audio/webm": string;
                "audio/x-matroska": string;
                "application/pdf": string;
                "application/octet-stream": string;
            };
        };
        responses: {
            /** @description Stored; the upload is `uploaded`. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Upload"];
                };
            };
            400: components["responses"]["InvalidInput"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["InternalError"];
        };
    };
    tusCreate: {
        parameters: {
            query?: never;
            header: {
                /** @description `1.0.0` (412 otherwise). */
                "Tus-Resumable": "1.0.0";
                /** @description The file's size in bytes; at most the plan's largest upload. */
                "Upload-Length": number;
                /** @description `filename <base64>,filetype <base64>` (`name` and `type` are read too; without a type, the file name's extension decides). */
                "Upload-Metadata": string;
                /** @description `sha1 <base64>` or `sha256 <base64>` of this request's body; a mismatch is 460 and keeps nothing. */
                "Upload-Checksum"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/offset+octet-stream": string;
            };
        };
        responses: {
            /** @description Created. */
            201: {
                headers: {
                    /** @description The upload's URL: `…/v1/uploads/tus/upl_…`. */
                    Location: string;
                    /** @description When the unfinished upload expires (RFC 9110 date); each PATCH moves it on. */
                    "Upload-Expires"?: string;
                    /** @description With bytes sent along: the offset reached. */
                    "Upload-Offset"?: number;
                    /** @description `1.0.0`. */
                    "Tus-Resumable": "1.0.0";
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            412: components["responses"]["TusVersionUnsupported"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            460: components["responses"]["ChecksumMismatch"];
            500: components["responses"]["InternalError"];
        };
    };
    tusOptions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The server's tus capabilities. */
            204: {
                headers: {
                    /** @description `1.0.0`. */
                    "Tus-Resumable": "1.0.0";
                    /** @description `1.0.0`. */
                    "Tus-Version": string;
                    /** @description `creation,creation-with-upload,termination,expiration,checksum`. */
                    "Tus-Extension"?: string;
                    /** @description The largest upload any plan takes, in bytes (the caller's plan may take less: 413 at creation). */
                    "Tus-Max-Size"?: number;
                    /** @description `sha1,sha256`. */
                    "Tus-Checksum-Algorithm"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Not expected: this route takes no key and no input. Any 4xx still has the error body. */
            "4XX": {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createUploadToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "maxUploads": 1,
                 *       "maxBytes": 104857600
                 *     }
                 */
                "application/json": components["schemas"]["CreateUploadTokenRequest"];
            };
        };
        responses: {
            /** @description The token. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UploadToken"];
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            410: components["responses"]["UploadExpired"];
            500: components["responses"]["InternalError"];
        };
    };
    tusOverride: {
        parameters: {
            query?: never;
            header: {
                /** @description `1.0.0` (412 otherwise). */
                "Tus-Resumable": "1.0.0";
                "X-HTTP-Method-Override": "PATCH" | "DELETE" | "HEAD";
            };
            path: {
                /** @description The upload's id after `upl_`: the URL is the `Location` its creation answered. */
                key: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/offset+octet-stream": string;
            };
        };
        responses: {
            /** @description As the HEAD it stands for: the upload's offset and length, no body. */
            200: {
                headers: {
                    /** @description Bytes received and kept. */
                    "Upload-Offset"?: number;
                    /** @description The declared size. */
                    "Upload-Length"?: number;
                    /** @description `1.0.0`. */
                    "Tus-Resumable": "1.0.0";
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description As the PATCH or DELETE it stands for. */
            204: {
                headers: {
                    /** @description With PATCH: the offset reached. */
                    "Upload-Offset"?: number;
                    /** @description `1.0.0`. */
                    "Tus-Resumable": "1.0.0";
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["UploadOffsetMismatch"];
            410: components["responses"]["UploadExpired"];
            412: components["responses"]["TusVersionUnsupported"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            423: components["responses"]["UploadLocked"];
            460: components["responses"]["ChecksumMismatch"];
            500: components["responses"]["InternalError"];
        };
    };
    tusTerminate: {
        parameters: {
            query?: never;
            header: {
                /** @description `1.0.0` (412 otherwise). */
                "Tus-Resumable": "1.0.0";
            };
            path: {
                /** @description The upload's id after `upl_`: the URL is the `Location` its creation answered. */
                key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Terminated. */
            204: {
                headers: {
                    /** @description `1.0.0`. */
                    "Tus-Resumable": "1.0.0";
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            410: components["responses"]["UploadExpired"];
            412: components["responses"]["TusVersionUnsupported"];
            423: components["responses"]["UploadLocked"];
            500: components["responses"]["InternalError"];
        };
    };
    tusUploadOptions: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The upload's id after `upl_`: the URL is the `Location` its creation answered. */
                key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The server's tus capabilities (as OPTIONS /v1/uploads/tus). */
            204: {
                headers: {
                    /** @description `1.0.0`. */
                    "Tus-Resumable": "1.0.0";
                    /** @description `1.0.0`. */
                    "Tus-Version": string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Not expected: this route takes no key and no input. Any 4xx still has the error body. */
            "4XX": {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    tusHead: {
        parameters: {
            query?: never;
            header: {
                /** @description `1.0.0` (412 otherwise). */
                "Tus-Resumable": "1.0.0";
            };
            path: {
                /** @description The upload's id after `upl_`: the URL is the `Location` its creation answered. */
                key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The upload's state; no body. */
            200: {
                headers: {
                    /** @description Bytes received and kept. */
                    "Upload-Offset": number;
                    /** @description The declared size. */
                    "Upload-Length": number;
                    /** @description `filename` and `filetype`, base64. */
                    "Upload-Metadata"?: string;
                    /** @description While unfinished: when it expires. */
                    "Upload-Expires"?: string;
                    /** @description `no-store`. */
                    "Cache-Control": string;
                    /** @description `1.0.0`. */
                    "Tus-Resumable": "1.0.0";
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            410: components["responses"]["UploadExpired"];
            412: components["responses"]["TusVersionUnsupported"];
            500: components["responses"]["InternalError"];
        };
    };
    tusPatch: {
        parameters: {
            query?: never;
            header: {
                /** @description `1.0.0` (412 otherwise). */
                "Tus-Resumable": "1.0.0";
                "Upload-Offset": number;
                /** @description `sha1 <base64>` or `sha256 <base64>` of this request's body; a mismatch is 460 and keeps nothing. */
                "Upload-Checksum"?: string;
            };
            path: {
                /** @description The upload's id after `upl_`: the URL is the `Location` its creation answered. */
                key: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/offset+octet-stream": string;
            };
        };
        responses: {
            /** @description Kept. */
            204: {
                headers: {
                    /** @description The offset reached. */
                    "Upload-Offset": number;
                    /** @description While unfinished: when it expires. */
                    "Upload-Expires"?: string;
                    /** @description `1.0.0`. */
                    "Tus-Resumable": "1.0.0";
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["UploadOffsetMismatch"];
            410: components["responses"]["UploadExpired"];
            412: components["responses"]["TusVersionUnsupported"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            423: components["responses"]["UploadLocked"];
            460: components["responses"]["ChecksumMismatch"];
            500: components["responses"]["InternalError"];
        };
    };
    getUsage: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Usage. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Usage"];
                };
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    downloadFile: {
        parameters: {
            query?: never;
            header?: {
                Range?: string;
            };
            path: {
                /** @description The signed claim of the output and its expiry. */
                token: string;
                /** @description The output's file name. */
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The whole file, as the output's own media type. */
            200: {
                headers: {
                    /** @description The output's media type, one of the content types below. */
                    "Content-Type": "image/jpeg" | "image/png" | "image/webp" | "image/avif" | "image/gif" | "video/mp4" | "video/webm" | "audio/mp4" | "audio/mpeg" | "audio/ogg" | "audio/flac" | "audio/wav" | "application/pdf" | "application/vnd.apple.mpegurl" | "application/dash+xml" | "text/vtt" | "application/json";
                    "Content-Length": number;
                    ETag: string;
                    "Accept-Ranges": "bytes";
                    [name: string]: unknown;
                };
                content: {
                    "image/jpeg": string;
                    "image/png": string;
                    "image/webp": string;
                    "image/avif": string;
                    "image/gif": string;
                    "video/mp4": string;
                    "video/webm": string;
                    "audio/mp4": string;
                    "audio/mpeg": string;
                    "audio/ogg": string;
                    "audio/flac": string;
                    "audio/wav": string;
                    "application/pdf": string;
                    "application/vnd.apple.mpegurl": string;
                    "application/dash+xml": string;
                    "text/vtt": string;
                    "application/json": string;
                };
            };
            /** @description The requested range (one range; several, or a malformed one, are answered with the whole file). */
            206: {
                headers: {
                    /** @description The output's media type, one of the content types below. */
                    "Content-Type": "image/jpeg" | "image/png" | "image/webp" | "image/avif" | "image/gif" | "video/mp4" | "video/webm" | "audio/mp4" | "audio/mpeg" | "audio/ogg" | "audio/flac" | "audio/wav" | "application/pdf" | "application/vnd.apple.mpegurl" | "application/dash+xml" | "text/vtt" | "application/json";
                    "Content-Length": number;
                    ETag: string;
                    "Accept-Ranges": "bytes";
                    /** @description `bytes <first>-<last>/<size>`. */
                    "Content-Range": string;
                    [name: string]: unknown;
                };
                content: {
                    "image/jpeg": string;
                    "image/png": string;
                    "image/webp": string;
                    "image/avif": string;
                    "image/gif": string;
                    "video/mp4": string;
                    "video/webm": string;
                    "audio/mp4": string;
                    "audio/mpeg": string;
                    "audio/ogg": string;
                    "audio/flac": string;
                    "audio/wav": string;
                    "application/pdf": string;
                    "application/vnd.apple.mpegurl": string;
                    "application/dash+xml": string;
                    "text/vtt": string;
                    "application/json": string;
                };
            };
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            /** @description The range starts at or past the end of the file (or asks for an empty suffix); no body. */
            416: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description `bytes *\/<size>`: the file's size. */
                    "Content-Range": string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            500: components["responses"]["InternalError"];
        };
    };
    downloadFilePreflight: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description GET and HEAD from any origin, with a `Range` header. */
            204: {
                headers: {
                    "Access-Control-Allow-Origin"?: "*";
                    "Access-Control-Allow-Methods"?: string;
                    "Access-Control-Allow-Headers"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Not expected: this route takes no key and no input. Any 4xx still has the error body. */
            "4XX": {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every check passed. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
            /** @description At least one check failed. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
            /** @description Not expected: this route takes no key and no input. Any 4xx still has the error body. */
            "4XX": {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getOpenApiDocument: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OpenAPI 3.1. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            /** @description Not expected: this route takes no key and no input. Any 4xx still has the error body. */
            "4XX": {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listWorkflows: {
        parameters: {
            query?: {
                /** @description Items per page. */
                limit?: number;
                /** @description `nextCursor` of the previous page (opaque). */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of workflows. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkflowList"];
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    createWorkflow: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1–255 characters, as for a job: the same key and body within 24 h replays the first response; another body is 422, a request still running is 409. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "url": "upload:upl_0123456789abcdefghijklmn",
                 *       "steps": {
                 *         "hls": {
                 *           "type": "video-adaptive",
                 *           "options": {
                 *             "mp4": true
                 *           }
                 *         },
                 *         "poster": {
                 *           "type": "video-thumbnail",
                 *           "options": {
                 *             "timestamp": "auto",
                 *             "format": "jpg"
                 *           }
                 *         },
                 *         "mp4": {
                 *           "type": "compress-video",
                 *           "options": {
                 *             "quality": "medium"
                 *           }
                 *         }
                 *       },
                 *       "webhookUrl": "https://example.com/hooks/media"
                 *     }
                 */
                "application/json": components["schemas"]["CreateWorkflowRequest"];
            };
        };
        responses: {
            /** @description Created; the first steps are queued. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description `/v1/workflows/{id}`. */
                    Location?: string;
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    /** @description `true` when this is the replay of an earlier request with the same Idempotency-Key. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedWorkflow"];
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            409: components["responses"]["IdempotencyKeyInUse"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    getWorkflow: {
        parameters: {
            query?: never;
            header?: {
                /** @description `wait=N`: hold the request up to N seconds (capped at 60) for the workflow to end. */
                Prefer?: string;
            };
            path: {
                /** @description The workflow's id (`wfl_…`). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The workflow. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description `wait=N` with the seconds applied. */
                    "Preference-Applied"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Workflow"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    deleteWorkflow: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The workflow's id (`wfl_…`). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeletedWorkflow"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["WorkflowNotEnded"];
            500: components["responses"]["InternalError"];
        };
    };
    streamWorkflowEvents: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The workflow's id (`wfl_…`). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The event stream. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    cancelWorkflow: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The workflow's id (`wfl_…`). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Cancelled, or already ended. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkflowCancelResult"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["InternalError"];
        };
    };
    listTemplates: {
        parameters: {
            query?: {
                /** @description Items per page. */
                limit?: number;
                /** @description `nextCursor` of the previous page (opaque). */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of templates. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TemplateList"];
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    createTemplate: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "web video",
                 *       "steps": {
                 *         "hls": {
                 *           "type": "video-adaptive",
                 *           "options": {
                 *             "mp4": true
                 *           }
                 *         },
                 *         "poster": {
                 *           "type": "video-thumbnail",
                 *           "options": {
                 *             "timestamp": "auto",
                 *             "format": "jpg"
                 *           }
                 *         },
                 *         "mp4": {
                 *           "type": "compress-video",
                 *           "options": {
                 *             "quality": "medium"
                 *           }
                 *         }
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["CreateTemplateRequest"];
            };
        };
        responses: {
            /** @description Created. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description `/v1/templates/{id}`. */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Template"];
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["InternalError"];
        };
    };
    getTemplate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The template's id (`tpl_…`). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The template. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Template"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    deleteTemplate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The template's id (`tpl_…`). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeletedTemplate"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["InternalError"];
        };
    };
    updateTemplate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The template's id (`tpl_…`). */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "web video v2"
                 *     }
                 */
                "application/json": components["schemas"]["UpdateTemplateRequest"];
            };
        };
        responses: {
            /** @description The template as updated. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Template"];
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["InternalError"];
        };
    };
    jobFinishedWebhook: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description When this attempt was signed, Unix milliseconds.
                 * @example 1767225600123
                 */
                "x-service-timestamp": string;
                /**
                 * @description `sha256=` + hex HMAC-SHA256(secret, `<x-service-timestamp>.<raw body>`); two space-separated values during a secret rotation.
                 * @example sha256=5d1c…
                 */
                "x-service-signature": string;
                /**
                 * @description Standard Webhooks: the delivery's id (`msg_…`), the same on every retry.
                 * @example msg_Vq3kQ0aB7xYz9TuvW1rS2dEf
                 */
                "webhook-id": string;
                /**
                 * @description Standard Webhooks: the same instant, Unix seconds.
                 * @example 1767225600
                 */
                "webhook-timestamp": string;
                /**
                 * @description Standard Webhooks: `v1,` + base64 HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<raw body>`.
                 * @example v1,K5oZ…
                 */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SdkJob"];
            };
        };
        responses: {
            /** @description Gone: stop this delivery without retrying. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received; the delivery succeeded. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    jobPlayableWebhook: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description When this attempt was signed, Unix milliseconds.
                 * @example 1767225600123
                 */
                "x-service-timestamp": string;
                /**
                 * @description `sha256=` + hex HMAC-SHA256(secret, `<x-service-timestamp>.<raw body>`); two space-separated values during a secret rotation.
                 * @example sha256=5d1c…
                 */
                "x-service-signature": string;
                /**
                 * @description Standard Webhooks: the delivery's id (`msg_…`), the same on every retry.
                 * @example msg_Vq3kQ0aB7xYz9TuvW1rS2dEf
                 */
                "webhook-id": string;
                /**
                 * @description Standard Webhooks: the same instant, Unix seconds.
                 * @example 1767225600
                 */
                "webhook-timestamp": string;
                /**
                 * @description Standard Webhooks: `v1,` + base64 HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<raw body>`.
                 * @example v1,K5oZ…
                 */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["JobPlayableWebhook"];
            };
        };
        responses: {
            /** @description Gone: stop this delivery without retrying. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received; the delivery succeeded. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    workflowEndedWebhook: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description When this attempt was signed, Unix milliseconds.
                 * @example 1767225600123
                 */
                "x-service-timestamp": string;
                /**
                 * @description `sha256=` + hex HMAC-SHA256(secret, `<x-service-timestamp>.<raw body>`); two space-separated values during a secret rotation.
                 * @example sha256=5d1c…
                 */
                "x-service-signature": string;
                /**
                 * @description Standard Webhooks: the delivery's id (`msg_…`), the same on every retry.
                 * @example msg_Vq3kQ0aB7xYz9TuvW1rS2dEf
                 */
                "webhook-id": string;
                /**
                 * @description Standard Webhooks: the same instant, Unix seconds.
                 * @example 1767225600
                 */
                "webhook-timestamp": string;
                /**
                 * @description Standard Webhooks: `v1,` + base64 HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<raw body>`.
                 * @example v1,K5oZ…
                 */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WorkflowWebhook"];
            };
        };
        responses: {
            /** @description Gone: stop this delivery without retrying. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received; the delivery succeeded. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
