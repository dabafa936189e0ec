ALTER TABLE `workflows` ADD `store` text;--> statement-breakpoint
CREATE INDEX `workflows_created` ON `workflows` (`created_at`);--> statement-breakpoint
CREATE INDEX `workflows_webhook_ended` ON `workflows` (`ended_at`) WHERE "webhook_url" IS NOT NULL AND "ended_at" IS NOT NULL;