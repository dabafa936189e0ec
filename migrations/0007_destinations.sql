CREATE TABLE `destinations` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`name` text NOT NULL,
	`endpoint` text NOT NULL,
	`bucket` text NOT NULL,
	`region` text NOT NULL,
	`access_key_id` text NOT NULL,
	`secret_ciphertext` text NOT NULL,
	`secret_last4` text NOT NULL,
	`force_path_style` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `destinations_org` ON `destinations` (`org_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `store_objects` (
	`job_id` text NOT NULL,
	`name` text NOT NULL,
	`key` text NOT NULL,
	`status` text NOT NULL,
	`size` integer NOT NULL,
	`etag` text,
	`error` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`job_id`, `name`),
	FOREIGN KEY (`job_id`) REFERENCES `jobs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `jobs` ADD `store_destination_id` text;--> statement-breakpoint
ALTER TABLE `jobs` ADD `store_prefix` text;--> statement-breakpoint
ALTER TABLE `jobs` ADD `store_status` text;--> statement-breakpoint
CREATE INDEX `jobs_store_pending` ON `jobs` (`completed_at`) WHERE "store_status" = 'pending';