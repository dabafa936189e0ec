ALTER TABLE `jobs` ADD `playable_at` integer;--> statement-breakpoint
ALTER TABLE `jobs` ADD `playable_url` text;--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_deliveries_playable` ON `webhook_deliveries` (`job_id`) WHERE "trigger" = 'playable';