package main

import (
	_ "github.com/alexedwards/scs/pgxstore"
	_ "github.com/alexedwards/scs/v2"
	_ "github.com/aws/aws-sdk-go-v2/config"
	_ "github.com/aws/aws-sdk-go-v2/credentials"
	_ "github.com/aws/aws-sdk-go-v2/service/s3"
	_ "github.com/chromedp/chromedp"
	_ "github.com/emersion/go-smtp"
	_ "github.com/go-playground/validator/v10"
	_ "github.com/google/uuid"
	_ "github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "github.com/labstack/echo/v4"
	_ "github.com/labstack/echo/v4/middleware"
	_ "github.com/pressly/goose/v3"
	_ "github.com/prometheus/client_golang/prometheus"
	_ "github.com/prometheus/client_golang/prometheus/promhttp"
	_ "github.com/riverqueue/river"
	_ "github.com/riverqueue/river/riverdriver/riverpgxv5"
	_ "github.com/riverqueue/river/rivermigrate"
	_ "github.com/wneessen/go-mail"
	_ "golang.org/x/crypto/argon2"
	_ "golang.org/x/time/rate"
	_ "gorm.io/driver/postgres"
	_ "gorm.io/gorm"
)

func main() {}
