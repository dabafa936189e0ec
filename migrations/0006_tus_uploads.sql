ALTER TABLE `uploads` ADD `protocol` text DEFAULT 'put' NOT NULL;--> statement-breakpoint
ALTER TABLE `uploads` ADD `received` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `uploads` ADD `multipart_id` text;--> statement-breakpoint
ALTER TABLE `uploads` ADD `parts` text;--> statement-breakpoint
ALTER TABLE `uploads` ADD `lease_id` text;--> statement-breakpoint
ALTER TABLE `uploads` ADD `lease_expires_at` integer;--> statement-breakpoint
ALTER TABLE `uploads` ADD `token_id` text;--> statement-breakpoint
CREATE INDEX `uploads_org_created` ON `uploads` (`org_id`,`mode`,`created_at`);--> statement-breakpoint
CREATE INDEX `uploads_open` ON `uploads` (`org_id`,`mode`,`expires_at`) WHERE "protocol" = 'tus' AND "status" = 'pending';