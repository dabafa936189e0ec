CREATE TABLE `templates` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`mode` text NOT NULL,
	`name` text NOT NULL,
	`steps` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `templates_org_created` ON `templates` (`org_id`,`mode`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `workflows` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`mode` text NOT NULL,
	`url` text NOT NULL,
	`steps` text NOT NULL,
	`template_id` text,
	`webhook_url` text,
	`metadata` text,
	`outcome` text,
	`error_step` text,
	`error_code` text,
	`error_message` text,
	`created_at` integer NOT NULL,
	`ended_at` integer,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `workflows_org_created` ON `workflows` (`org_id`,`mode`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `workflows_open` ON `workflows` (`created_at`,`id`) WHERE "ended_at" IS NULL;--> statement-breakpoint
ALTER TABLE `jobs` ADD `workflow_id` text;--> statement-breakpoint
ALTER TABLE `jobs` ADD `workflow_step` text;--> statement-breakpoint
ALTER TABLE `jobs` ADD `released_at` integer;--> statement-breakpoint
CREATE INDEX `jobs_workflow` ON `jobs` (`workflow_id`) WHERE "workflow_id" IS NOT NULL;--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD `workflow_id` text;--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_deliveries_workflow` ON `webhook_deliveries` (`workflow_id`) WHERE "trigger" = 'workflow';