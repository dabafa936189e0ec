ALTER TABLE `jobs` ADD `parent_job_id` text;--> statement-breakpoint
ALTER TABLE `jobs` ADD `part` text;--> statement-breakpoint
ALTER TABLE `jobs` ADD `fanout` text;--> statement-breakpoint
CREATE INDEX `jobs_parent` ON `jobs` (`parent_job_id`) WHERE "parent_job_id" IS NOT NULL;