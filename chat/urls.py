from django.urls import path

from chat import views

urlpatterns = [
    path("matches/<int:pk>/message/", views.match_message, name="match_message"),
    path("matches/<int:pk>/messages/<int:message_pk>/report/", views.match_message_report, name="match_message_report"),
]
