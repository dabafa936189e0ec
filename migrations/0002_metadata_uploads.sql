CREATE TABLE `job_metadata` (
	`job_id` text NOT NULL,
	`org_id` text NOT NULL,
	`mode` text NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	PRIMARY KEY(`job_id`, `key`),
	FOREIGN KEY (`job_id`) REFERENCES `jobs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `job_metadata_lookup` ON `job_metadata` (`org_id`,`mode`,`key`,`value`,`job_id`);--> statement-breakpoint
CREATE TABLE `uploads` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`mode` text NOT NULL,
	`filename` text NOT NULL,
	`content_type` text NOT NULL,
	`size` integer NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`created_at` integer NOT NULL,
	`uploaded_at` integer,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `uploads_expires` ON `uploads` (`expires_at`);--> statement-breakpoint
ALTER TABLE `jobs` ADD `metadata` text;--> statement-breakpoint
CREATE INDEX `jobs_org_type_created` ON `jobs` (`org_id`,`mode`,`type`,`created_at`,`id`);