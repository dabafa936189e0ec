ALTER TABLE `jobs` ADD `retries_ms` integer;--> statement-breakpoint
ALTER TABLE `jobs` ADD `start_ms` integer;--> statement-breakpoint
ALTER TABLE `jobs` ADD `report_ms` integer;