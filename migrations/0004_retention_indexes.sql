-- Indexes for the cron's batched walks over jobs and webhook deliveries (docs/operations.md: retention).
CREATE INDEX `jobs_created` ON `jobs` (`created_at`);--> statement-breakpoint
CREATE INDEX `jobs_outputs_due` ON `jobs` (`completed_at`) WHERE "status" = 'completed' AND "outputs_deleted_at" IS NULL;--> statement-breakpoint
CREATE INDEX `jobs_webhook_finished` ON `jobs` (`completed_at`) WHERE "webhook_url" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `webhook_deliveries_unsent` ON `webhook_deliveries` (`created_at`) WHERE "status" = 'pending' AND "attempts" = 0;